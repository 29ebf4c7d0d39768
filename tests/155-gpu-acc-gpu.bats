#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-acc on the GPU (issue 17): OWCTY and MAP against nested DFS on every
# shared model and label and on random graphs, every lasso checked;
# compute-sanitizer on small models.  Skipped where there is no GPU; run on
# the device machine (bench/on-device.sh test tests/155-gpu-acc-gpu.bats).

load helper

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
}

@test "GPU: gpu-acc's OWCTY and MAP agree with nested DFS on every shared model and label, plain and restructured, every lasso valid" {
    local checked=0
    for m in $(present_models fmsd_fig1 dice brp herman7 coin2 coin4 coin4_6 leader3 leader4 leader6 csma2_2 csma3_2 phil3 phil_lss3 mutual3 mutual5 dining_crypt3 dining_crypt6 wlan1 wlan3 zeroconf firewire_dl); do
        csr=$(model_csr "$m")
        restructure -u 7 "$csr" > "$BATS_TEST_TMPDIR/r.csr"
        for label in $(head -2 "$(model_file "$m.lab")" | grep -o '"[^"]*"' | tr -d '"'); do
            run gpu-acc --cpu --no-witness -a "$label" "$csr"
            local want=$status
            for input in "$csr" "$BATS_TEST_TMPDIR/r.csr"; do
                for algo in owcty map; do
                    run gpu-acc --algo "$algo" -a "$label" "$input"
                    [ "$status" -eq "$want" ] || fail "$m $label $algo ($input): exit $status, nested DFS $want: $output"
                    [ "$want" -eq 3 ] && lasso_check "$input" "$label" "$output"
                done
            done
            checked=$((checked + 1))
        done
    done
    [ "$checked" -ge 60 ] || fail "only $checked model labels"
}

@test "GPU: gpu-acc's OWCTY and MAP agree with nested DFS on random graphs" {
    for seed in $(seq 1 40); do
        randmdp -n $((50 + seed * 37)) -c 2 -k 2 -e 0 -l $((seed % 5 * 20)) -g $((seed % 4 + 1)) "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        run gpu-acc --cpu --no-witness -a goal "$BATS_TEST_TMPDIR/r.csr"
        local want=$status
        for algo in owcty map; do
            run gpu-acc --algo "$algo" -a goal "$BATS_TEST_TMPDIR/r.csr"
            [ "$status" -eq "$want" ] || fail "seed $seed $algo: exit $status, nested DFS $want"
            [ "$want" -eq 3 ] && lasso_check "$BATS_TEST_TMPDIR/r.csr" goal "$output"
        done
    done
}

@test "GPU: gpu-acc --mdp gives Storm's Pmax(G F label) = 1 and > 0 state by state on every listed shared MDP" {
    n=$(buchi_check)
    [ "$n" -ge 9 ] || fail "only $n model labels checked"
}

@test "GPU: gpu-acc is clean under compute-sanitizer memcheck and racecheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "no compute-sanitizer"
    for pair in coin2:finished leader3:elected fmsd_fig1:s3; do
        m=${pair%%:*} label=${pair#*:}
        for tool in memcheck racecheck; do
            for algo in owcty map; do
                run compute-sanitizer --tool "$tool" --error-exitcode 99 gpu-acc --algo "$algo" -a "$label" "$(model_csr "$m")"
                [ "$status" -ne 99 ] || fail "$tool $m $algo: $output"
                [ "$status" -eq 3 ] || fail "$tool $m $algo: exit $status: $output"
            done
        done
    done
}

b=build/bin; L=/tmp/large
models="${MODELS:-phil7 leader7 coin6_4 leader8}"
for m in $models; do while [ -f $L/$m.building ]; do sleep 2; done; done
for m in $models; do
  $b/gpu-scc --cpu $L/$m.csr > /tmp/$m.sref
  for mode in 0 2 3; do for o in ""; do
    best=9
    for i in 1 2 3; do j=$(LP_MODE=$mode $b/gpu-scc $o --stats=json $L/$m.csr 2>&1 >/tmp/o.labels | tail -1); t=$(echo "$j" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["decompose_s"], "passes", j["passes"], "ph", j["phases"], "search", round(j["search_s"]*1e3,2))'); set -- $t; best=$(awk -v a=$best -v b=$1 'BEGIN{print (b<a)?b:a}'); done
    cmp -s /tmp/o.labels /tmp/$m.sref && ok=ok || ok=DIFF
    echo "$m | mode $mode $o | best $best | last: $t | $ok"
  done; done
  for mode in 0 2 3; do
    best=9; for i in 1 2 3; do j=$(LP_MODE=$mode $b/gpu-mec --stats=json $L/$m.csr 2>&1 >/dev/null | tail -1); t=$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["decompose_s"])'); best=$(awk -v a=$best -v b=$t 'BEGIN{print (b<a)?b:a}'); done
    echo "$m | gpu-mec mode $mode | best $best"
  done
done

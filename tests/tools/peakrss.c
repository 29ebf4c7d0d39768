/*
 * peakrss - test helper: the peak resident memory of one command.
 *
 *   peakrss OUTFILE COMMAND [ARG...]
 *
 * Runs COMMAND with its standard output in OUTFILE (standard error passed
 * through), waits for it with wait4(2) and prints its peak resident set size
 * (ru_maxrss) in bytes on standard output.  Exit status: the command's, or 127
 * when it cannot be started, 2 on usage.  Not installed; used by the Bats
 * tests of the documented memory bounds (tests/140-memory.bats).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: peakrss OUTFILE COMMAND [ARG...]\n");
        return 2;
    }
    int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) {
        perror(argv[1]);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        dup2(out, STDOUT_FILENO);
        close(out);
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    close(out);
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) {
        perror("wait4");
        return 2;
    }
    printf("%lld\n", (long long)usage.ru_maxrss * 1024); /* Linux: KiB */
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * pipe.h - pipes at full speed (internal to the format library).
 */
#ifndef CSR_PIPE_H
#define CSR_PIPE_H

#include <fcntl.h>
#include <sys/stat.h>

/* Where fd is a pipe, raise its buffer to 1 MiB (Linux's F_SETPIPE_SZ; the
 * default is 64 KiB, and at most /proc/sys/fs/pipe-max-size, 1 MiB by default,
 * is granted without privileges): a gigabyte of CSR then takes 1,000 instead
 * of 16,000 hand-overs between writer and reader.  Either end may ask; a
 * refusal leaves the pipe as it is.  Nothing else is touched. */
static inline void pipe_grow(int fd)
{
#ifdef F_SETPIPE_SZ
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode) && fcntl(fd, F_GETPIPE_SZ) < (1 << 20))
        (void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
    (void)fd;
#endif
}

#endif

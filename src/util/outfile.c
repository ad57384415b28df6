/* Safe output files: a temporary file in the same folder, renamed over the target on success (see outfile.h). */
#define _GNU_SOURCE /* fopencookie */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void say(char *msg, size_t size, const char *fmt, ...)
{
    if (!msg || !size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
}

/* the stream's writes: every byte or the first error, kept in o->err (stdio loses errno by the time of fclose) */
static ssize_t ck_write(void *cookie, const char *buf, size_t n)
{
    spmv__outfile *o = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(o->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (!o->err) o->err = w < 0 ? errno : EIO;
            return 0; /* an error for stdio */
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

/* "/dev/stdout", "/dev/stderr", "/dev/fd/N", "/proc/self/fd/N": the descriptor N of this process (written through a
 * duplicate, so that an append or a pipe behaves as the shell set it up), else -1 */
static int std_fd(const char *path)
{
    if (!strcmp(path, "/dev/stdout")) return 1;
    if (!strcmp(path, "/dev/stderr")) return 2;
    const char *num = !strncmp(path, "/dev/fd/", 8) ? path + 8 : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
    if (!num || !*num) return -1;
    char *end;
    errno = 0;
    long v = strtol(num, &end, 10);
    return *end || errno || v < 0 || v > INT_MAX ? -1 : (int)v;
}

static int out_open(spmv__outfile *o, const char *path, int probe, char *msg, size_t size)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || !*path) {
        say(msg, size, "empty output path");
        return -1;
    }
    if (strlen(path) >= sizeof o->path - 300) {
        say(msg, size, "%.200s...: output path longer than %zu characters", path, sizeof o->path - 300);
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->real, sizeof o->real, "%s", path);
    const int sys = !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);

    /* this process's own descriptors */
    int sfd = std_fd(path);
    if (sfd >= 0) {
        int fl = fcntl(sfd, F_GETFL);
        if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
            say(msg, size, "%s: descriptor %d is %s", path, sfd, fl < 0 ? "not open" : "not open for writing");
            return -1;
        }
        o->direct = o->special = 1;
        if (probe) return 0;
        o->fd = fcntl(sfd, F_DUPFD_CLOEXEC, 3);
        if (o->fd < 0) {
            say(msg, size, "%s: cannot duplicate descriptor %d: %s", path, sfd, strerror(errno));
            return -1;
        }
        goto stream;
    }

    struct stat ls, st;
    int exists = 0;
    if (lstat(path, &ls) == 0) {
        if (S_ISLNK(ls.st_mode) && !sys) {
            char *r = realpath(path, NULL);
            if (r && strlen(r) < sizeof o->real - 300) snprintf(o->real, sizeof o->real, "%s", r);
            else o->direct = 1; /* a dangling link: written through the link */
            free(r);
        }
        if (stat(o->real, &st) == 0) {
            exists = 1;
            if (S_ISDIR(st.st_mode)) {
                say(msg, size, "%s: is a folder, not a file", path);
                return -1;
            }
            if (!S_ISREG(st.st_mode)) o->direct = o->special = 1;
        } else if (errno != ENOENT) {
            say(msg, size, "%s: %s", path, strerror(errno));
            return -1;
        }
    } else if (errno != ENOENT) {
        say(msg, size, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (sys) o->direct = 1;

    if (!o->direct) {
        /* the temporary file: .NAME.tmp-PID-N next to the file that is replaced */
        char dir[4096];
        const char *base;
        const char *slash = strrchr(o->real, '/');
        if (!slash) {
            snprintf(dir, sizeof dir, ".");
            base = o->real;
        } else {
            snprintf(dir, sizeof dir, "%.*s", slash == o->real ? 1 : (int)(slash - o->real), o->real);
            base = slash + 1;
        }
        int e = 0;
        for (unsigned k = 0; k < 1000; k++) {
            snprintf(o->tmp, sizeof o->tmp, "%.3790s%s.%.180s.tmp-%ld-%u", dir, strcmp(dir, "/") ? "/" : "", base,
                     (long)getpid(), k);
            o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (o->fd >= 0 || errno != EEXIST) break;
        }
        if (o->fd < 0) {
            e = errno;
            o->tmp[0] = '\0';
            /* a folder we cannot create in, but the file itself is writable: write it in place */
            if ((e == EACCES || e == EPERM) && exists && access(o->real, W_OK) == 0) {
                o->direct = 1;
            } else {
                say(msg, size, "%s: cannot create a file in the folder %s: %s", path, dir, strerror(e));
                return -1;
            }
        } else {
            if (exists) { /* keep the mode (and, as root, the owner) of the file that is replaced */
                if (fchmod(o->fd, st.st_mode & 07777)) { /* not fatal */
                }
                if (geteuid() == 0 && fchown(o->fd, st.st_uid, st.st_gid)) { /* not fatal */
                }
            }
            if (probe) {
                close(o->fd);
                unlink(o->tmp);
                o->fd = -1;
                o->tmp[0] = '\0';
                return 0;
            }
        }
    }
    if (o->direct) {
        if (probe) {
            if (o->special) return 0; /* a device or FIFO is not opened (it may block) */
            if (!exists && !sys) return 0; /* a dangling link */
            if (!exists) { /* a new file under /dev or /proc: create it (and remove it again, it is ours) */
                int fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
                if (fd < 0) {
                    say(msg, size, "%s: cannot create: %s", path, strerror(errno));
                    return -1;
                }
                close(fd);
                unlink(o->path);
                return 0;
            }
            int fd = open(o->real, O_WRONLY | O_CLOEXEC); /* no O_TRUNC: nothing changes */
            if (fd < 0) {
                say(msg, size, "%s: cannot write: %s", path, strerror(errno));
                return -1;
            }
            close(fd);
            return 0;
        }
        o->fd = open(o->special ? o->path : o->real, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (o->fd < 0) {
            say(msg, size, "%s: cannot open for writing: %s", path, strerror(errno));
            return -1;
        }
    }
stream:;
    cookie_io_functions_t io = {NULL, ck_write, NULL, NULL};
    o->f = fopencookie(o, "w", io);
    if (!o->f) {
        int e = errno;
        close(o->fd);
        o->fd = -1;
        if (o->tmp[0]) unlink(o->tmp);
        o->tmp[0] = '\0';
        say(msg, size, "%s: %s", path, strerror(e));
        return -1;
    }
    return 0;
}

int spmv__out_open(spmv__outfile *o, const char *path, char *msg, size_t msize)
{
    return out_open(o, path, 0, msg, msize);
}

int spmv__out_check(const char *path, char *msg, size_t msize)
{
    spmv__outfile o;
    return out_open(&o, path, 1, msg, msize);
}

void spmv__out_abort(spmv__outfile *o)
{
    if (o->f) fclose(o->f); /* the cookie has no close: the descriptor stays open */
    o->f = NULL;
    if (o->fd >= 0) close(o->fd);
    o->fd = -1;
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = '\0';
}

int spmv__out_commit(spmv__outfile *o, char *msg, size_t msize)
{
    if (!o->f) {
        say(msg, msize, "%s: not open", o->path);
        return -1;
    }
    errno = 0;
    if (fflush(o->f) != 0 && !o->err) o->err = errno ? errno : EIO;
    if (ferror(o->f) && !o->err) o->err = EIO;
    fclose(o->f);
    o->f = NULL;
    /* on the disk before it replaces the old file (a crash leaves the old file or the new one, never a mix) */
    if (!o->err && !o->special && fsync(o->fd) != 0 && errno != EINVAL && errno != ENOTSUP) o->err = errno;
    if (close(o->fd) != 0 && !o->err && errno != EINTR) o->err = errno;
    o->fd = -1;
    if (o->err) {
        if (o->tmp[0]) {
            unlink(o->tmp);
            o->tmp[0] = '\0';
            say(msg, msize, "%s: write error: %s (nothing was replaced: a file that existed is unchanged)", o->path,
                strerror(o->err));
        } else {
            say(msg, msize, "%s: write error: %s%s", o->path, strerror(o->err),
                o->special ? "" : " (written in place: the file may be incomplete)");
        }
        return -1;
    }
    if (o->tmp[0]) {
        if (rename(o->tmp, o->real) != 0) {
            int e = errno;
            unlink(o->tmp);
            o->tmp[0] = '\0';
            say(msg, msize, "%s: cannot put the written file in place: %s (nothing was replaced)", o->path,
                strerror(e));
            return -1;
        }
        o->tmp[0] = '\0';
        /* the rename itself on the disk (best effort) */
        char dir[4096];
        const char *slash = strrchr(o->real, '/');
        snprintf(dir, sizeof dir, "%.*s", !slash ? 1 : slash == o->real ? 1 : (int)(slash - o->real),
                 !slash ? "." : o->real);
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            if (fsync(dfd)) { /* best effort */
            }
            close(dfd);
        }
    }
    return 0;
}

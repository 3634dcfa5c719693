/* fault_preload: a shared library that the fault-injection tests load into the heed binary
 * with LD_PRELOAD, to make libc calls fail as a full disk or a read-only file system would,
 * or to kill the process in the middle of a write (kill -9 at an exact point). It needs no
 * root and no special mount: it wraps libc's functions and asks the real ones (dlsym
 * RTLD_NEXT) for everything it lets through. Configured by environment variables, read once
 * when the library loads:
 *
 *   HEED_FAULT_OP     which calls are counted and failed:
 *                       write     write, writev, pwrite, pwritev on a file whose path (read
 *                                 back from /proc/self/fd/N) contains HEED_FAULT_PATH
 *                       open      open, openat, creat, fopen of a matching path for writing
 *                                 (O_WRONLY, O_RDWR, O_CREAT or O_TRUNC; fopen modes w, a, +)
 *                       rename    rename, renameat, renameat2 with a matching old or new path
 *                       mkdir     mkdir, mkdirat of a matching path
 *                       readonly  all of open, rename, mkdir and unlink, unlinkat, remove,
 *                                 rmdir: a read-only directory (default errno EROFS)
 *                       trace     nothing fails: every matching write is appended to
 *                                 HEED_FAULT_LOG as "write <path> <bytes>"
 *   HEED_FAULT_PATH   the substring a path must contain (required)
 *   HEED_FAULT_NTH    the first matching call that fails (1 = the first, the default); every
 *                     later matching call fails too, as a disk stays full
 *   HEED_FAULT_ERRNO  ENOSPC (the default for write), EROFS (the default otherwise), EDQUOT,
 *                     EIO, EACCES, or KILL: the process sends itself SIGKILL at that call
 *                     (a write first writes half of its bytes, so the file is torn)
 *   HEED_FAULT_LOG    optional: a file to which each injected fault appends one line
 *                     ("<op> <path> <errno name>"), so a test can tell that it happened
 *
 * Paths given to open/rename/mkdir are matched as given (the tests give absolute ones).
 * Calls made inside libc itself (stdio's own writes, for example) do not pass through here;
 * heed writes its files with write(2) through std::ofstream or its own buffer. */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE /* its inline open() would clash with the wrapper below */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* OP_UNLINK is a kind of call, not an op of its own: only readonly fails those. */
enum op { OP_NONE, OP_WRITE, OP_OPEN, OP_RENAME, OP_MKDIR, OP_UNLINK, OP_READONLY, OP_TRACE };
static const char* const kOpNames[] = {"none",   "write",    "open", "rename",
                                       "mkdir", "unlink", "readonly", "trace"};

static enum op g_op = OP_NONE;
static const char* g_path = NULL;
static long g_nth = 1;
static int g_errno = 0;  /* 0 with g_kill */
static int g_kill = 0;
static const char* g_log = NULL;
static long g_seen = 0;  /* matching calls so far */

static const char* errno_name(int e) {
  switch (e) {
    case ENOSPC: return "ENOSPC";
    case EROFS: return "EROFS";
    case EDQUOT: return "EDQUOT";
    case EIO: return "EIO";
    case EACCES: return "EACCES";
    default: return "E?";
  }
}

__attribute__((constructor)) static void fault_init(void) {
  const char* op = getenv("HEED_FAULT_OP");
  g_path = getenv("HEED_FAULT_PATH");
  if (!op || !g_path || !*g_path) return;
  if (!strcmp(op, "write")) g_op = OP_WRITE;
  else if (!strcmp(op, "open")) g_op = OP_OPEN;
  else if (!strcmp(op, "rename")) g_op = OP_RENAME;
  else if (!strcmp(op, "mkdir")) g_op = OP_MKDIR;
  else if (!strcmp(op, "readonly")) g_op = OP_READONLY;
  else if (!strcmp(op, "trace")) g_op = OP_TRACE;
  else return;
  const char* nth = getenv("HEED_FAULT_NTH");
  if (nth && atol(nth) > 0) g_nth = atol(nth);
  g_errno = g_op == OP_WRITE ? ENOSPC : EROFS;
  const char* e = getenv("HEED_FAULT_ERRNO");
  if (e) {
    if (!strcmp(e, "KILL")) g_kill = 1, g_errno = 0;
    else if (!strcmp(e, "ENOSPC")) g_errno = ENOSPC;
    else if (!strcmp(e, "EROFS")) g_errno = EROFS;
    else if (!strcmp(e, "EDQUOT")) g_errno = EDQUOT;
    else if (!strcmp(e, "EIO")) g_errno = EIO;
    else if (!strcmp(e, "EACCES")) g_errno = EACCES;
  }
  g_log = getenv("HEED_FAULT_LOG");
}

static void* real(const char* name) { return dlsym(RTLD_NEXT, name); }

static void log_line(const char* what, const char* path, const char* detail) {
  if (!g_log) return;
  int (*real_open)(const char*, int, ...) = (int (*)(const char*, int, ...))real("open");
  ssize_t (*real_write)(int, const void*, size_t) =
      (ssize_t (*)(int, const void*, size_t))real("write");
  const int fd = real_open(g_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[4200];
  const int n = snprintf(line, sizeof line, "%s %s %s\n", what, path, detail);
  if (n > 0) (void)real_write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  close(fd);
}

static int matches(const char* path) { return path && g_path && strstr(path, g_path) != NULL; }

/* Whether this matching call is one to fail (counts it). */
static int strike(void) { return __atomic_add_fetch(&g_seen, 1, __ATOMIC_SEQ_CST) >= g_nth; }

__attribute__((noreturn)) static void die(void) {
  kill(getpid(), SIGKILL);
  for (;;) pause();
}

/* The path of an open file descriptor, or "" when it has none. */
static void fd_path(int fd, char* out, size_t size) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, out, size - 1);
  out[n > 0 ? n : 0] = '\0';
}

/* For a write of `bytes` to fd: 0 to let it through, 1 to fail it (errno set), 2 to
 * write half and die. */
static int write_fault(int fd, size_t bytes) {
  if (g_op != OP_WRITE && g_op != OP_TRACE) return 0;
  char path[4096];
  fd_path(fd, path, sizeof path);
  if (!matches(path)) return 0;
  if (g_op == OP_TRACE) {
    char detail[32];
    snprintf(detail, sizeof detail, "%zu", bytes);
    log_line("write", path, detail);
    return 0;
  }
  if (!strike()) return 0;
  log_line("write", path, g_kill ? "KILL" : errno_name(g_errno));
  if (g_kill) return 2;
  errno = g_errno;
  return 1;
}

ssize_t write(int fd, const void* buf, size_t n) {
  static ssize_t (*next)(int, const void*, size_t);
  if (!next) next = (ssize_t (*)(int, const void*, size_t))real("write");
  switch (write_fault(fd, n)) {
    case 1: return -1;
    case 2: if (n > 1) (void)next(fd, buf, n / 2); die();
  }
  return next(fd, buf, n);
}

static size_t iov_bytes(const struct iovec* iov, int count) {
  size_t n = 0;
  for (int i = 0; i < count; ++i) n += iov[i].iov_len;
  return n;
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  static ssize_t (*next)(int, const struct iovec*, int);
  if (!next) next = (ssize_t (*)(int, const struct iovec*, int))real("writev");
  switch (write_fault(fd, iov_bytes(iov, count))) {
    case 1: return -1;
    case 2: if (count > 0 && iov[0].iov_len > 1) {
        static ssize_t (*plain)(int, const void*, size_t);
        if (!plain) plain = (ssize_t (*)(int, const void*, size_t))real("write");
        (void)plain(fd, iov[0].iov_base, iov[0].iov_len / 2);
      }
      die();
  }
  return next(fd, iov, count);
}

#define WRAP_PWRITE(name, off_type)                                                \
  ssize_t name(int fd, const void* buf, size_t n, off_type offset) {              \
    static ssize_t (*next)(int, const void*, size_t, off_type);                   \
    if (!next) next = (ssize_t (*)(int, const void*, size_t, off_type))real(#name); \
    switch (write_fault(fd, n)) {                                                  \
      case 1: return -1;                                                           \
      case 2: if (n > 1) (void)next(fd, buf, n / 2, offset); die();               \
    }                                                                              \
    return next(fd, buf, n, offset);                                               \
  }
WRAP_PWRITE(pwrite, off_t)
WRAP_PWRITE(pwrite64, off64_t)

#define WRAP_PWRITEV(name, off_type)                                                   \
  ssize_t name(int fd, const struct iovec* iov, int count, off_type offset) {         \
    static ssize_t (*next)(int, const struct iovec*, int, off_type);                  \
    if (!next) next = (ssize_t (*)(int, const struct iovec*, int, off_type))real(#name); \
    switch (write_fault(fd, iov_bytes(iov, count))) {                                  \
      case 1: return -1;                                                               \
      case 2: die();                                                                   \
    }                                                                                  \
    return next(fd, iov, count, offset);                                               \
  }
WRAP_PWRITEV(pwritev, off_t)
WRAP_PWRITEV(pwritev64, off64_t)

/* For a call on path of the given kind: 1 to fail it (errno set); may not return (KILL). */
static int path_fault(enum op kind, const char* path) {
  if (g_op != kind && !(g_op == OP_READONLY && kind != OP_WRITE)) return 0;
  if (!matches(path) || !strike()) return 0;
  log_line(kOpNames[kind], path, g_kill ? "KILL" : errno_name(g_errno));
  if (g_kill) die();
  errno = g_errno;
  return 1;
}

static int opens_for_writing(int flags) {
  return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
}

static int open_fault(const char* path, int flags) {
  return opens_for_writing(flags) && path_fault(OP_OPEN, path);
}

/* open's mode argument is there only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, mode)                                          \
  mode_t mode = 0;                                                      \
  if ((flags) & (O_CREAT | __O_TMPFILE)) {                              \
    va_list ap;                                                         \
    va_start(ap, flags);                                                \
    mode = (mode_t)va_arg(ap, int);                                     \
    va_end(ap);                                                         \
  }

#define WRAP_OPEN(name)                                                         \
  int name(const char* path, int flags, ...) {                                  \
    static int (*next)(const char*, int, ...);                                  \
    if (!next) next = (int (*)(const char*, int, ...))real(#name);              \
    OPEN_MODE(flags, mode)                                                      \
    if (open_fault(path, flags)) return -1;                                     \
    return next(path, flags, mode);                                             \
  }
WRAP_OPEN(open)
WRAP_OPEN(open64)

#define WRAP_OPENAT(name)                                                       \
  int name(int dirfd, const char* path, int flags, ...) {                       \
    static int (*next)(int, const char*, int, ...);                             \
    if (!next) next = (int (*)(int, const char*, int, ...))real(#name);         \
    OPEN_MODE(flags, mode)                                                      \
    if (open_fault(path, flags)) return -1;                                     \
    return next(dirfd, path, flags, mode);                                      \
  }
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

/* The _FORTIFY_SOURCE forms, called without a mode. */
#define WRAP_OPEN_2(name)                                                       \
  int name(const char* path, int flags) {                                       \
    static int (*next)(const char*, int);                                       \
    if (!next) next = (int (*)(const char*, int))real(#name);                   \
    if (open_fault(path, flags)) return -1;                                     \
    return next(path, flags);                                                   \
  }
WRAP_OPEN_2(__open_2)
WRAP_OPEN_2(__open64_2)

#define WRAP_CREAT(name)                                                        \
  int name(const char* path, mode_t mode) {                                     \
    static int (*next)(const char*, mode_t);                                    \
    if (!next) next = (int (*)(const char*, mode_t))real(#name);                \
    if (path_fault(OP_OPEN, path)) return -1;                                   \
    return next(path, mode);                                                    \
  }
WRAP_CREAT(creat)
WRAP_CREAT(creat64)

#define WRAP_FOPEN(name)                                                        \
  FILE* name(const char* path, const char* mode) {                              \
    static FILE* (*next)(const char*, const char*);                             \
    if (!next) next = (FILE * (*)(const char*, const char*)) real(#name);       \
    if (mode && strpbrk(mode, "wa+") && path_fault(OP_OPEN, path)) return NULL; \
    return next(path, mode);                                                    \
  }
WRAP_FOPEN(fopen)
WRAP_FOPEN(fopen64)

int rename(const char* from, const char* to) {
  static int (*next)(const char*, const char*);
  if (!next) next = (int (*)(const char*, const char*))real("rename");
  if (path_fault(OP_RENAME, matches(to) ? to : from)) return -1;
  return next(from, to);
}

int renameat(int fromfd, const char* from, int tofd, const char* to) {
  static int (*next)(int, const char*, int, const char*);
  if (!next) next = (int (*)(int, const char*, int, const char*))real("renameat");
  if (path_fault(OP_RENAME, matches(to) ? to : from)) return -1;
  return next(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char* from, int tofd, const char* to, unsigned flags) {
  static int (*next)(int, const char*, int, const char*, unsigned);
  if (!next) next = (int (*)(int, const char*, int, const char*, unsigned))real("renameat2");
  if (path_fault(OP_RENAME, matches(to) ? to : from)) return -1;
  return next(fromfd, from, tofd, to, flags);
}

int mkdir(const char* path, mode_t mode) {
  static int (*next)(const char*, mode_t);
  if (!next) next = (int (*)(const char*, mode_t))real("mkdir");
  if (path_fault(OP_MKDIR, path)) return -1;
  return next(path, mode);
}

int mkdirat(int dirfd, const char* path, mode_t mode) {
  static int (*next)(int, const char*, mode_t);
  if (!next) next = (int (*)(int, const char*, mode_t))real("mkdirat");
  if (path_fault(OP_MKDIR, path)) return -1;
  return next(dirfd, path, mode);
}

/* Removing entries: only a read-only directory refuses it. */
int unlink(const char* path) {
  static int (*next)(const char*);
  if (!next) next = (int (*)(const char*))real("unlink");
  if (path_fault(OP_UNLINK, path)) return -1;
  return next(path);
}

int unlinkat(int dirfd, const char* path, int flags) {
  static int (*next)(int, const char*, int);
  if (!next) next = (int (*)(int, const char*, int))real("unlinkat");
  if (path_fault(OP_UNLINK, path)) return -1;
  return next(dirfd, path, flags);
}

int remove(const char* path) {
  static int (*next)(const char*);
  if (!next) next = (int (*)(const char*))real("remove");
  if (path_fault(OP_UNLINK, path)) return -1;
  return next(path);
}

int rmdir(const char* path) {
  static int (*next)(const char*);
  if (!next) next = (int (*)(const char*))real("rmdir");
  if (path_fault(OP_UNLINK, path)) return -1;
  return next(path);
}

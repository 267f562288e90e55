/* SPDX-License-Identifier: MIT */
/* cli.c — shared helpers of the command-line tools: UTF-8 decoding that never
 * fails (invalid bytes become U+FFFD), terminal and JSON escaping, round-trip
 * float formatting, human byte sizes, option matching and format detection. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <modelio.h>
#include <modelio_inspect.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

size_t cli_print_escaped(FILE *out, const char *p, size_t n, size_t max_bytes, int quoted) {
    /* errno survives: callers print a name, then strerror(errno) */
    int saved = errno;
    size_t used = 0;
    char *e = mio_escape_text(p, n, max_bytes, quoted, &used);
    if (!e) {
        fputs("?", out);
        errno = saved;
        return n;
    }
    fputs(e, out);
    mio_free(e);
    errno = saved;
    return used;
}

int cli_is(const char *arg, const char *name) { return strcmp(arg, name) == 0; }

int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **value) {
    const char *arg = argv[*i];
    size_t nl = strlen(name);
    if (strncmp(arg, name, nl) != 0) return 0;
    if (arg[nl] == '=') {
        *value = arg + nl + 1;
        return 1;
    }
    if (arg[nl] != '\0') return 0;
    if (*i + 1 >= argc) return -1;
    *i += 1;
    *value = argv[*i];
    return 1;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_written_gguf(const char *out, int to_stdout, uint64_t *size, int64_t *nkv) {
    struct stat so;
    *size = 0;
    *nkv = -1;
    if (!to_stdout && out && stat(out, &so) == 0) {
        *size = (uint64_t)so.st_size;
        mio_gguf_file *o = NULL;
        if (mio_gguf_open(out, 0, &o) == MIO_OK) *nkv = mio_gguf_kv_count(o);
        mio_gguf_close(o);
    } else if (to_stdout && fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode)) {
        *size = (uint64_t)so.st_size;
    }
}

uint64_t cli_peak_rss(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (uint64_t)ru.ru_maxrss * 1024;
}

void cli_esc(FILE *out, const char *p, size_t n) { cli_print_escaped(out, p, n, SIZE_MAX, 0); }

void cli_esc_str(FILE *out, const char *s) { cli_print_escaped(out, s, strlen(s), SIZE_MAX, 0); }

void cli_report(const char *prog, const char *path, const char *msg) {
    /* Library messages quote names from the file: escaped like everything else. */
    size_t pl = strlen(path);
    fprintf(stderr, "%s: ", prog);
    if (!(strncmp(msg, path, pl) == 0 && msg[pl] == ':' && msg[pl + 1] == ' ')) {
        cli_esc_str(stderr, path);
        fputs(": ", stderr);
    }
    cli_esc_str(stderr, msg);
    fputc('\n', stderr);
}

const char *cli_plural(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

static const char *g_prog = "mio";
static volatile sig_atomic_t g_progress_line;

void cli_set_progress_line(int on) { g_progress_line = on; }

static void on_fatal_signal(int sig) {
    /* Only async-signal-safe calls: remove every temp file in flight, say so, exit. */
    int removed = mio_cancel_writes();
    if (g_progress_line) (void)!write(STDERR_FILENO, "\n", 1);
    (void)!write(STDERR_FILENO, g_prog, strlen(g_prog));
    static const char a[] = ": interrupted", b[] = "; removed the unfinished output\n", c[] = "\n";
    (void)!write(STDERR_FILENO, a, sizeof a - 1);
    if (removed > 0)
        (void)!write(STDERR_FILENO, b, sizeof b - 1);
    else
        (void)!write(STDERR_FILENO, c, sizeof c - 1);
    _exit(128 + sig);
}

void cli_install_signals(const char *prog) {
    struct sigaction sa;
    g_prog = prog;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    /* A signal ignored at start (nohup, a background job without job control)
     * stays ignored, as the shell meant it. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
    /* Over a file-size limit (ulimit -f) the default action kills the process
     * mid-write; ignored, write() fails with EFBIG and the error path cleans up. */
    signal(SIGXFSZ, SIG_IGN);
}

int cli_is_stdout(const char *path) { return strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0; }

int cli_stdout_usable(const char *prog) {
    if (isatty(STDOUT_FILENO)) {
        fprintf(stderr, "%s: refusing to write a binary model file to a terminal; redirect the output or name a file\n",
                prog);
        return 0;
    }
    return 1;
}

int cli_write_stdout(void *user, const void *p, size_t n) {
    (void)user;
    const char *b = p;
    while (n) {
        ssize_t w = write(STDOUT_FILENO, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

int cli_ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

void cli_progress_line(double *last, double t0, int64_t done, int64_t total, uint64_t bytes, uint64_t total_bytes,
                       const char *name, size_t name_len) {
    double now = cli_now();
    if (now - *last < 0.1 && done != total) return;
    *last = now;
    char a[32], b[32], bar[32];
    int width = 24, fill = total_bytes ? (int)((double)bytes / (double)total_bytes * width) : width;
    for (int k = 0; k < width; k++) bar[k] = k < fill ? '#' : '.';
    bar[width] = 0;
    double secs = now - t0;
    fprintf(stderr, "\r[%s] %3d%% %lld/%lld %s/%s %.0f MB/s ", bar,
            total_bytes ? (int)(100.0 * (double)bytes / (double)total_bytes) : 100, (long long)done, (long long)total,
            mio_format_size(a, sizeof a, bytes), mio_format_size(b, sizeof b, total_bytes),
            secs > 0 ? (double)bytes / 1e6 / secs : 0.0);
    size_t shown = name ? cli_print_escaped(stderr, name, name_len, 40, 0) : 0;
    fprintf(stderr, "%*s", (int)(40 - shown), "");
    fflush(stderr);
    cli_set_progress_line(1);
}

int cli_version(const char *prog) {
    printf("%s (libmodelio) %s\n", prog, mio_version());
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* SPDX-License-Identifier: MIT */
/* cli.c — shared helpers of the command-line tools: UTF-8 decoding that never
 * fails (invalid bytes become U+FFFD), terminal and JSON escaping, round-trip
 * float formatting, human byte sizes, option matching and format detection. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <modelio.h>

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

size_t cli_utf8_next(const unsigned char *p, size_t n, uint32_t *cp, int *valid)
{
    unsigned char c = p[0];
    size_t len;
    uint32_t v, min;

    *valid = 0;
    *cp = 0xFFFDu;
    if (c < 0x80) {
        *cp = c;
        *valid = 1;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2; v = c & 0x1Fu; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3; v = c & 0x0Fu; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4; v = c & 0x07u; min = 0x10000;
    } else {
        return 1; /* continuation byte, C0/C1, F5..FF */
    }
    if (len > n)
        return 1;
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xC0u) != 0x80u)
            return 1;
        v = (v << 6) | (p[k] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFFu || (v >= 0xD800u && v <= 0xDFFFu))
        return 1;
    *cp = v;
    *valid = 1;
    return len;
}

int cli_utf8_valid(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        int ok;
        i += cli_utf8_next(u + i, n - i, &cp, &ok);
        if (!ok)
            return 0;
    }
    return 1;
}

size_t cli_print_escaped(FILE *out, const char *p, size_t n, size_t max_bytes, int quoted)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t i = 0;

    while (i < n) {
        uint32_t cp;
        int ok;
        size_t k = cli_utf8_next(u + i, n - i, &cp, &ok);
        if (i + k > max_bytes)
            break;
        if (!ok) {
            fputs("\xEF\xBF\xBD", out);
        } else if (cp == '\n') {
            fputs("\\n", out);
        } else if (cp == '\t') {
            fputs("\\t", out);
        } else if (cp == '\r') {
            fputs("\\r", out);
        } else if (cp < 0x20 || cp == 0x7F) {
            fprintf(out, "\\x%02X", (unsigned)cp);
        } else if (quoted && (cp == '"' || cp == '\\')) {
            fputc('\\', out);
            fputc((int)cp, out);
        } else {
            fwrite(u + i, 1, k, out);
        }
        i += k;
    }
    return i;
}

char *cli_json_quote(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    /* worst case: every byte becomes "\u00XX" (6 bytes) or U+FFFD (3 bytes) */
    if (n > (SIZE_MAX - 3) / 6)
        return NULL;
    char *buf = malloc(n * 6 + 3);
    if (!buf)
        return NULL;
    size_t o = 0, i = 0;
    buf[o++] = '"';
    while (i < n) {
        uint32_t cp;
        int ok;
        size_t k = cli_utf8_next(u + i, n - i, &cp, &ok);
        if (!ok) {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3;
        } else if (cp == '"' || cp == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)cp;
        } else if (cp == '\n') {
            buf[o++] = '\\'; buf[o++] = 'n';
        } else if (cp == '\t') {
            buf[o++] = '\\'; buf[o++] = 't';
        } else if (cp == '\r') {
            buf[o++] = '\\'; buf[o++] = 'r';
        } else if (cp < 0x20 || cp == 0x7F) {
            static const char hex[] = "0123456789abcdef";
            memcpy(buf + o, "\\u00", 4);
            o += 4;
            buf[o++] = hex[(cp >> 4) & 0xF];
            buf[o++] = hex[cp & 0xF];
        } else {
            memcpy(buf + o, u + i, k);
            o += k;
        }
        i += k;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

char *cli_fmt_f32(char *buf, size_t cap, float v)
{
    if (isnan(v) || isinf(v)) {
        snprintf(buf, cap, "null");
        return buf;
    }
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(buf, cap, "%.*g", prec, (double)v);
        if (strtof(buf, NULL) == v)
            break;
    }
    return buf;
}

char *cli_fmt_f64(char *buf, size_t cap, double v)
{
    if (isnan(v) || isinf(v)) {
        snprintf(buf, cap, "null");
        return buf;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

char *cli_human_size(char *buf, size_t cap, uint64_t bytes)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (bytes < 1024) {
        snprintf(buf, cap, "%u B", (unsigned)bytes);
        return buf;
    }
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, cap, "%.2f %s", v, units[u]);
    return buf;
}

int cli_is(const char *arg, const char *name)
{
    return strcmp(arg, name) == 0;
}

int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t nl = strlen(name);
    if (strncmp(arg, name, nl) != 0)
        return 0;
    if (arg[nl] == '=') {
        *value = arg + nl + 1;
        return 1;
    }
    if (arg[nl] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *i += 1;
    *value = argv[*i];
    return 1;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_written_gguf(const char *out, int to_stdout, uint64_t *size, int64_t *nkv)
{
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

uint64_t cli_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (uint64_t)ru.ru_maxrss * 1024;
}

void cli_esc(FILE *out, const char *p, size_t n)
{
    cli_print_escaped(out, p, n, SIZE_MAX, 0);
}

void cli_esc_str(FILE *out, const char *s)
{
    cli_print_escaped(out, s, strlen(s), SIZE_MAX, 0);
}

void cli_report(const char *prog, const char *path, const char *msg)
{
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

const char *cli_plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static const char *g_prog = "mio";
static volatile sig_atomic_t g_progress_line;

void cli_set_progress_line(int on)
{
    g_progress_line = on;
}

static void on_fatal_signal(int sig)
{
    /* Only async-signal-safe calls: remove every temp file in flight, say so, exit. */
    int removed = mio_cancel_writes();
    if (g_progress_line)
        (void)!write(STDERR_FILENO, "\n", 1);
    (void)!write(STDERR_FILENO, g_prog, strlen(g_prog));
    static const char a[] = ": interrupted", b[] = "; removed the unfinished output\n", c[] = "\n";
    (void)!write(STDERR_FILENO, a, sizeof a - 1);
    if (removed > 0)
        (void)!write(STDERR_FILENO, b, sizeof b - 1);
    else
        (void)!write(STDERR_FILENO, c, sizeof c - 1);
    _exit(128 + sig);
}

void cli_install_signals(const char *prog)
{
    struct sigaction sa;
    g_prog = prog;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    /* A signal ignored at start (nohup, a background job without job control)
     * stays ignored, as the shell meant it. */
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
    /* Over a file-size limit (ulimit -f) the default action kills the process
     * mid-write; ignored, write() fails with EFBIG and the error path cleans up. */
    signal(SIGXFSZ, SIG_IGN);
}

int cli_is_stdout(const char *path)
{
    return strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0;
}

int cli_stdout_usable(const char *prog)
{
    if (isatty(STDOUT_FILENO)) {
        fprintf(stderr, "%s: refusing to write a binary model file to a terminal; redirect the output or name a file\n",
                prog);
        return 0;
    }
    return 1;
}

int cli_write_stdout(void *user, const void *p, size_t n)
{
    (void)user;
    const char *b = p;
    while (n) {
        ssize_t w = write(STDOUT_FILENO, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

int cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

cli_format cli_detect_format(const char *path)
{
    unsigned char b[9];
    size_t n;
    FILE *fp;

    if (cli_ends_with(path, ".index.json"))
        return CLI_FMT_ST_INDEX;
    /* O_NONBLOCK and a regular-file check first: reading a FIFO or a device
     * could block forever; the library names what it is. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return CLI_FMT_UNREADABLE;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return CLI_FMT_UNREADABLE;
    }
    fp = fdopen(fd, "rb");
    if (!fp) {
        close(fd);
        return CLI_FMT_UNREADABLE;
    }
    n = fread(b, 1, sizeof b, fp);
    int err = ferror(fp);
    fclose(fp);
    if (err)
        return CLI_FMT_UNREADABLE;
    if (n >= 4 && memcmp(b, "GGUF", 4) == 0)
        return CLI_FMT_GGUF;
    if (n == 9 && (b[8] == '{' || b[8] == ' ' || b[8] == '\t' || b[8] == '\n' || b[8] == '\r'))
        return CLI_FMT_ST;
    if (cli_ends_with(path, ".safetensors"))
        return CLI_FMT_ST;
    return CLI_FMT_UNKNOWN;
}

const char *cli_format_name(cli_format f)
{
    switch (f) {
    case CLI_FMT_GGUF: return "GGUF";
    case CLI_FMT_ST: return "safetensors";
    case CLI_FMT_ST_INDEX: return "safetensors index";
    default: return "unknown";
    }
}

void cli_progress_line(double *last, double t0, int64_t done, int64_t total, uint64_t bytes, uint64_t total_bytes,
                       const char *name, size_t name_len)
{
    double now = cli_now();
    if (now - *last < 0.1 && done != total)
        return;
    *last = now;
    char a[32], b[32], bar[32];
    int width = 24, fill = total_bytes ? (int)((double)bytes / (double)total_bytes * width) : width;
    for (int k = 0; k < width; k++)
        bar[k] = k < fill ? '#' : '.';
    bar[width] = 0;
    double secs = now - t0;
    fprintf(stderr, "\r[%s] %3d%% %lld/%lld %s/%s %.0f MB/s ", bar,
            total_bytes ? (int)(100.0 * (double)bytes / (double)total_bytes) : 100, (long long)done, (long long)total,
            cli_human_size(a, sizeof a, bytes), cli_human_size(b, sizeof b, total_bytes),
            secs > 0 ? (double)bytes / 1e6 / secs : 0.0);
    size_t shown = name ? cli_print_escaped(stderr, name, name_len, 40, 0) : 0;
    fprintf(stderr, "%*s", (int)(40 - shown), "");
    fflush(stderr);
    cli_set_progress_line(1);
}

int cli_version(const char *prog)
{
    printf("%s (libmodelio) %s\n", prog, mio_version());
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

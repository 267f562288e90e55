/* SPDX-License-Identifier: MIT */
/* test_fault.c — fault injection over the public entry points (docs/FAULTS.md).
 * One binary, one mode per CTest test:
 *   alloc      every allocation point of every scenario fails in turn: the
 *              N-th alone (N = 1, 2, ... until the call no longer reaches an
 *              N-th), then every one from the N-th on
 *   io         the N-th call of each I/O operation fails with ENOSPC / EIO /
 *              ... (N = 1, 2, ... until the call no longer makes an N-th)
 *   flaky      every read/write/pwrite is short, interrupted (EINTR), or both
 *   first-use  the IQ grid tables, built on first use, under allocation
 *              failure: each N in a fresh child process
 * Every faulted run must either fail cleanly — an error status with a message
 * (naming the errno for I/O faults), nothing left allocated that the run made,
 * and its directory exactly as before (no temp file, no partial output, the
 * pre-existing destination's bytes intact) — or succeed with output identical
 * to the clean run's (a fault the library tolerates: a thread it could not
 * start, a best-effort fsync of a directory). A run that injects nothing must
 * succeed with that same output: that ends the loop for the scenario.
 * Usage: test_fault MODE [scenario-name-substring]. */
#include "fault.h"
#include "harness.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <ftw.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------- watchdog */
/* A run that hangs (a retry loop that never ends under a fault) is reported
 * with its scenario and N instead of waiting for CTest's timeout. */
static char g_running[160];
static void on_alarm(int sig) {
    (void)sig;
    static const char m[] = "HANG: no return within 60 s: ";
    if (write(2, m, sizeof m - 1) < 0 || write(2, g_running, strlen(g_running)) < 0 || write(2, "\n", 1) < 0) _exit(1);
    _exit(1);
}
static mio_status guarded(const scenario *sc, const char *what, long n) {
    snprintf(g_running, sizeof g_running, "%s, %s, N=%ld", sc->name, what, n);
    alarm(60);
    mio_status st = sc->run();
    alarm(0);
    return st;
}

/* ------------------------------------------------------------- directory state */
static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}
static void rm_rf(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
    return h;
}

/* Every entry under dir (recursively, sorted): "path size hash\n" into out. */
static void listing(const char *dir, outbuf *out) {
    DIR *d = opendir(dir);
    if (!d) return;
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    for (size_t i = 0; i < n; i++) {
        char p[1024], line[1200];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(line, sizeof line, "%s/\n", p);
            buf_put(out, line, strlen(line));
            listing(p, out);
        } else {
            size_t len;
            void *b = read_bytes(p, &len);
            snprintf(line, sizeof line, "%s %zu %016llx\n", p, len, (unsigned long long)fnv(b, len, 0xcbf29ce484222325ull));
            free(b);
            buf_put(out, line, strlen(line));
        }
        free(names[i]);
    }
}

/* The directory state plus what the run reported in memory and through g_fd. */
static char *state(bool with_outputs) {
    outbuf o = {0};
    listing(".", &o);
    if (with_outputs) {
        char line[128];
        struct stat st;
        uint64_t fh = 0;
        size_t fl = 0;
        if (fstat(g_fd, &st) == 0 && st.st_size > 0) {
            fl = (size_t)st.st_size;
            void *b = malloc(fl);
            if (b && pread(g_fd, b, fl, 0) == (ssize_t)fl) fh = fnv(b, fl, 0xcbf29ce484222325ull);
            free(b);
        }
        snprintf(line, sizeof line, "-- memory %zu %016llx fd %zu %016llx\n", g_mem.len,
                 (unsigned long long)fnv(g_mem.p, g_mem.len, 0xcbf29ce484222325ull), fl, (unsigned long long)fh);
        buf_put(&o, line, strlen(line));
    }
    char *s = malloc(o.len + 1);
    memcpy(s, o.p, o.len);
    s[o.len] = 0;
    fault_real_free(o.p);
    return s;
}

static void clear_outputs(void) {
    g_mem.len = 0;
    if (ftruncate(g_fd, 0) != 0 || lseek(g_fd, 0, SEEK_SET) != 0) { perror("memfd"); exit(1); }
}

/* Enter a fresh directory for scenario sc and let it set up its inputs. */
static char g_dir[256];
static void enter(const scenario *sc, const char *mode) {
    snprintf(g_dir, sizeof g_dir, "fault-%s-%s", mode, sc->name);
    rm_rf(g_dir);
    if (mkdir(g_dir, 0777) != 0 || chdir(g_dir) != 0) { perror(g_dir); exit(1); }
    sc->setup();
}
static void leave(void) {
    if (chdir("..") != 0) exit(1);
    rm_rf(g_dir);
}
/* Back to the state after setup (after a run that succeeded). */
static void reset(const scenario *sc) {
    if (chdir("..") != 0) exit(1);
    rm_rf(g_dir);
    if (mkdir(g_dir, 0777) != 0 || chdir(g_dir) != 0) exit(1);
    sc->setup();
}

static mio_status run_once(const scenario *sc) {
    if (sc->prep) sc->prep();
    clear_outputs();
    return sc->run();
}

/* Differences between two states, for a report. */
static void show_diff(const char *want, const char *got) {
    fprintf(stderr, "    expected state:\n%s    got:\n%s", want, got);
}

/* Set up, take the clean run's result; false (reported) if it fails. */
static bool reference(const scenario *sc, const char *mode, char **before, char **ref) {
    enter(sc, mode);
    *before = state(false);
    mio_status st = run_once(sc);
    if (st) {
        fprintf(stderr, "%s: the clean run failed: %s %s\n", sc->name, mio_status_name(st), mio_last_error());
        T_CHECK(!"clean run");
        return false;
    }
    *ref = state(true);
    reset(sc);
    return true;
}

typedef struct tally { long clean, tolerated, mixed, bad; int statuses[64]; } tally;

/* Every line of got (a file with its size and checksum) is a line of before
 * or of after: each file is complete, old or new, and no temp file is left. */
static bool only_old_or_new(const char *got, const char *before, const char *after) {
    for (const char *l = got; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l + 1) : strlen(l);
        bool found = false;
        for (const char *set[2] = {before, after}, **sp = set; sp < set + 2 && !found; sp++)
            for (const char *q = *sp; *q && !found;) {
                const char *qe = strchr(q, '\n');
                size_t qn = qe ? (size_t)(qe - q + 1) : strlen(q);
                found = qn == n && memcmp(q, l, n) == 0;
                q += qn;
            }
        if (!found) return false;
        l += n;
    }
    return true;
}

/* Judge one faulted run: status st, injected or not. Returns true when the
 * loop is over (nothing was injected). */
static bool judge(const scenario *sc, const char *what, long n, mio_status st, const char *before, const char *ref,
                  int io_op, int io_errno, tally *t) {
    bool inj = fault_injected();
    long live = fault_live_blocks(0);
    bool ok = true;
    if (live != 0) {
        fprintf(stderr, "%s: %s N=%ld: %ld block(s) made during the call are still allocated after it (%s)\n", sc->name,
                what, n, live, st ? mio_last_error() : "it succeeded");
        fault_live_blocks(4);
        fault_live_reset();
        ok = false;
    }
    if (!inj || st == MIO_OK) {
        char *got = state(true);
        if (st != MIO_OK) {
            fprintf(stderr, "%s: %s N=%ld: nothing injected but %s: %s\n", sc->name, what, n, mio_status_name(st),
                    mio_last_error());
            ok = false;
        } else if (strcmp(got, ref) != 0) {
            fprintf(stderr, "%s: %s N=%ld: succeeded%s with an output unlike the clean run's\n", sc->name, what, n,
                    inj ? " despite the fault" : "");
            show_diff(ref, got);
            ok = false;
        }
        free(got);
        if (inj) t->tolerated++;
        if (st == MIO_OK) reset(sc);
    } else {
        const char *msg = mio_last_error();
        t->statuses[st & 63]++;
        if (!msg || !*msg) {
            fprintf(stderr, "%s: %s N=%ld: %s with an empty message\n", sc->name, what, n, mio_status_name(st));
            ok = false;
        }
        if (io_op < 0 && st != MIO_ERR_NOMEM) {
            fprintf(stderr, "%s: %s N=%ld: an allocation failure reported as %s: %s\n", sc->name, what, n,
                    mio_status_name(st), msg);
            ok = false;
        }
        if (io_errno && !strstr(msg, strerror(io_errno))) {
            fprintf(stderr, "%s: %s N=%ld: the message does not say \"%s\": %s\n", sc->name, what, n, strerror(io_errno),
                    msg);
            ok = false;
        }
        char *got = state(false);
        if (strcmp(got, before) != 0 && io_op == OP_RENAME && only_old_or_new(got, before, ref)) {
            t->mixed++; /* a group rename failing in the middle: documented (docs/FAULTS.md) */
        } else if (strcmp(got, before) != 0) {
            fprintf(stderr, "%s: %s N=%ld: failed (%s: %s) but the directory changed\n", sc->name, what, n,
                    mio_status_name(st), msg);
            show_diff(before, got);
            ok = false;
            reset(sc);
        }
        free(got);
        t->clean++;
    }
    if (ok) t_pass++;
    else { t_fail++; t->bad++; }
    return !inj;
}

static void print_tally(const scenario *sc, const char *what, long last, const tally *t) {
    printf("%-24s %-22s N=1..%-5ld clean errors %ld, tolerated %ld, defects %ld;", sc->name, what, last, t->clean,
           t->tolerated, t->bad);
    if (t->mixed) printf(" (%ld left old and new files side by side)", t->mixed);
    for (int s = 0; s < 64; s++)
        if (t->statuses[s]) printf(" %s x%d", mio_status_name((mio_status)s), t->statuses[s]);
    printf("\n");
    fflush(stdout);
}

/* ------------------------------------------------------------- modes */
static void mode_alloc(const scenario *sc) {
    char *before, *ref = NULL;
    if (!reference(sc, "alloc", &before, &ref)) { free(before); leave(); return; }
    for (int mode = FAULT_ALLOC_ONCE; mode <= FAULT_ALLOC_FROM; mode++) {
        const char *what = mode == FAULT_ALLOC_ONCE ? "alloc N-th fails" : "alloc N-th on fail";
        tally t = {0};
        long n = 1;
        for (;; n++) {
            if (sc->prep) sc->prep();
            clear_outputs();
            fault_alloc_arm(mode, n);
            mio_status st = guarded(sc, what, n);
            fault_disarm();
            if (judge(sc, what, n, st, before, ref, -1, 0, &t)) break;
            if (n > 200000) { T_CHECK(!"allocation loop ends"); break; }
        }
        print_tally(sc, what, n - 1, &t);
    }
    free(before);
    free(ref);
    leave();
}

static const struct { int op, e; } k_io[] = {
    {OP_WRITE, ENOSPC}, {OP_WRITE, EIO},   {OP_PWRITE, ENOSPC}, {OP_PWRITE, EIO}, {OP_READ, EIO},
    {OP_FSYNC, EIO},    {OP_CLOSE, EIO},   {OP_RENAME, EIO},    {OP_OPEN, EMFILE}, {OP_MKOSTEMP, ENOSPC},
    {OP_MMAP, ENOMEM},  {OP_FALLOCATE, ENOSPC}, {OP_MKDIR, ENOSPC},
};

static void mode_io(const scenario *sc) {
    char *before, *ref = NULL;
    if (!reference(sc, "io", &before, &ref)) { free(before); leave(); return; }
    for (size_t kk = 0; kk < 2 * sizeof k_io / sizeof k_io[0]; kk++) {
        size_t k = kk / 2;
        bool shorten = kk % 2;
        if (shorten && k_io[k].op != OP_WRITE && k_io[k].op != OP_PWRITE && k_io[k].op != OP_READ) continue;
        char what[64];
        snprintf(what, sizeof what, "%s%s %s", shorten ? "short+" : "", fault_op_name(k_io[k].op),
                 k_io[k].e == ENOSPC ? "ENOSPC" : k_io[k].e == EIO ? "EIO" : k_io[k].e == EMFILE ? "EMFILE" : "ENOMEM");
        tally t = {0};
        long n = 1;
        for (;; n++) {
            if (sc->prep) sc->prep();
            clear_outputs();
            fault_io_arm(k_io[k].op, n, k_io[k].e, shorten);
            mio_status st = guarded(sc, what, n);
            fault_disarm();
            if (judge(sc, what, n, st, before, ref, k_io[k].op, k_io[k].e, &t)) break;
            if (n > 100000) { T_CHECK(!"I/O loop ends"); break; }
        }
        if (n > 1) print_tally(sc, what, n - 1, &t);
    }
    free(before);
    free(ref);
    leave();
}

static void mode_flaky(const scenario *sc) {
    char *before, *ref = NULL;
    if (!reference(sc, "flaky", &before, &ref)) { free(before); leave(); return; }
    static const char *const names[3] = {"short", "EINTR", "short+EINTR"};
    for (int k = 0; k < 3; k++) {
        if (sc->prep) sc->prep();
        clear_outputs();
        fault_io_flaky(k != 1, k != 0);
        mio_status st = guarded(sc, names[k], 0);
        fault_disarm();
        long hits = fault_flaky_hits();
        char *got = state(true);
        if (st != MIO_OK) {
            fprintf(stderr, "%s: %s transfers: %s: %s\n", sc->name, names[k], mio_status_name(st), mio_last_error());
            T_CHECK(!"flaky transfers are retried");
        } else if (strcmp(got, ref) != 0) {
            fprintf(stderr, "%s: %s transfers: output unlike the clean run's\n", sc->name, names[k]);
            show_diff(ref, got);
            T_CHECK(!"same output");
        } else {
            t_pass++;
        }
        T_EQ_INT(fault_live_blocks(4), 0);
        fault_live_reset();
        free(got);
        if (hits) printf("%-24s %-12s transfers: %ld short/interrupted, output identical\n", sc->name, names[k], hits);
        reset(sc);
    }
    free(before);
    free(ref);
    leave();
}

/* Each N in a child forked from a process that never built the IQ tables or
 * started the worker pool. A failed call must be MIO_ERR_NOMEM and a second
 * call (nothing failing) must work; a call that succeeded despite the fault
 * must give what a second call gives. Child exit codes: 0 nothing injected,
 * 1 clean NOMEM + working retry, 2 tolerated with the same result, else a defect. */
static void first_use(const char *name, mio_status (*fn)(void)) {
    long n;
    int nomem = 0, tolerated = 0;
    for (n = 1; n < 10000; n++) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            clear_outputs();
            fault_alloc_arm(FAULT_ALLOC_ONCE, n);
            mio_status st = fn();
            fault_disarm();
            bool inj = fault_injected();
            if (st && !inj) _exit(3);
            if (st && st != MIO_ERR_NOMEM) { fprintf(stderr, "N=%ld: %s\n", n, mio_last_error()); _exit(4); }
            size_t len = g_mem.len;
            uint8_t *first = malloc(len + 1);
            memcpy(first, g_mem.p, len);
            clear_outputs();
            mio_status again = fn();
            if (st) _exit(again ? 5 : 1);
            if (!inj) _exit(0);
            _exit(!again && g_mem.len == len && memcmp(g_mem.p, first, len) == 0 ? 2 : 6);
        }
        int ws = 0;
        waitpid(pid, &ws, 0);
        if (WIFSIGNALED(ws)) {
            fprintf(stderr, "%s first use, allocation %ld fails: killed by signal %d (%s)\n", name, n, WTERMSIG(ws),
                    strsignal(WTERMSIG(ws)));
            T_CHECK(!"no crash, no abort");
            continue;
        }
        int rc = WEXITSTATUS(ws);
        if (rc == 0) break;
        if (rc == 1 || rc == 2) {
            if (rc == 1) nomem++;
            else tolerated++;
            t_pass++;
            continue;
        }
        fprintf(stderr, "%s first use, allocation %ld fails: child status %d\n", name, n, rc);
        T_CHECK(!"clean MIO_ERR_NOMEM and a working retry");
    }
    printf("%-24s first use, alloc N-th fails N=1..%-5ld MIO_ERR_NOMEM then a working retry %d, tolerated %d\n", name,
           n - 1, nomem, tolerated);
}

static void mode_first_use(void) {
    first_use("iq3_xxs encode", scenario_iq_first_use);
    first_use("matvec (worker pool)", scenario_matvec_first_use);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: test_fault alloc|io|flaky|first-use [scenario]\n"); return 2; }
    const char *mode = argv[1], *only = argc > 2 ? argv[2] : NULL;
    signal(SIGALRM, on_alarm);
    g_fd = memfd_create("fault-out", MFD_CLOEXEC);
    if (g_fd < 0) { perror("memfd_create"); return 1; }
    if (strcmp(mode, "first-use") == 0) {
        mode_first_use();
        T_DONE();
    }
    void (*fn)(const scenario *) = strcmp(mode, "alloc") == 0 ? mode_alloc
                                  : strcmp(mode, "io") == 0   ? mode_io
                                  : strcmp(mode, "flaky") == 0 ? mode_flaky : NULL;
    if (!fn) { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
    for (size_t i = 0; i < g_n_scenarios; i++)
        if (!only || strstr(g_scenarios[i].name, only)) fn(&g_scenarios[i]);
    T_DONE();
}

/* SPDX-License-Identifier: MIT */
/* cli.h — helpers shared by the libmodelio command-line tools: option
 * matching, printing file bytes escaped for a terminal (the library's
 * mio_escape_text), reports, signals, progress lines. Tools use only the
 * public headers (modelio.h, modelio_inspect.h). */
#ifndef MIO_CLI_H
#define MIO_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses shared by every tool. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* Print n bytes as text for a terminal: valid UTF-8 passes through, invalid
 * bytes become U+FFFD, control characters are escaped (\n, \t, \xNN, and \" \\
 * when quoted is set). At most max_bytes input bytes are printed (stopping on a
 * sequence boundary); returns the number of input bytes consumed. */
size_t cli_print_escaped(FILE *out, const char *p, size_t n, size_t max_bytes, int quoted);

/* Option matching: 1 if arg equals name. For options taking a value,
 * cli_opt_value accepts "--name VALUE" and "--name=VALUE": on a match it stores
 * the value, advances *i past what it consumed and returns 1; it returns -1 when
 * the value is missing, 0 when arg is not this option. */
int cli_is(const char *arg, const char *name);
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **value);

/* The one way tools print text that comes from a file (names, keys, library
 * messages quoting them): escaped for a terminal by cli_print_escaped, so a
 * crafted file cannot send escape sequences to the user's terminal. */
void cli_esc(FILE *out, const char *p, size_t n);
void cli_esc_str(FILE *out, const char *s);

/* Print "prog: path: msg" on stderr, escaped. Library messages often start with
 * the path already ("path: ..." ); then it is not repeated. */
void cli_report(const char *prog, const char *path, const char *msg);

/* one or many by count: "1 tensor", "2 tensors" */
const char *cli_plural(uint64_t n, const char *one, const char *many);

/* SIGINT/SIGTERM/SIGHUP: remove the temporary file of any write in progress
 * (mio_cancel_writes), print "prog: interrupted", exit 128+signal (130, 143).
 * A signal already ignored when the tool starts (nohup) stays ignored.
 * SIGXFSZ is ignored so that a file-size limit fails the write cleanly.
 * cli_set_progress_line(1) while a "\r" progress line is on screen. */
void cli_install_signals(const char *prog);
void cli_set_progress_line(int on);

/* A "\r[####....]  42% 3/21 1.5 MiB/3.0 MiB 120 MB/s name" progress line on
 * stderr, at most every 0.1 s (*last holds the time of the previous one) and
 * always for the last tensor; t0 is the start time. name (escaped) may be NULL.
 * Marks the line with cli_set_progress_line; end it with a newline. */
void cli_progress_line(double *last, double t0, int64_t done, int64_t total, uint64_t bytes, uint64_t total_bytes,
                       const char *name, size_t name_len);

/* OUT names standard output ("-" or "/dev/stdout"): the tools stream to it
 * directly, with no temp file and no rename. cli_stdout_usable refuses (with a
 * message) when stdout is a terminal. cli_write_stdout is a mio_write_fn. */
int cli_is_stdout(const char *path);
int cli_stdout_usable(const char *prog);
int cli_write_stdout(void *user, const void *p, size_t n);

/* --version: "PROG (libmodelio) 0.1.0" on stdout (the library actually
 * loaded); returns CLI_EXIT_OK. Every tool answers `PROG --version`. */
int cli_version(const char *prog);

/* 1 if s ends with suffix. */
int cli_ends_with(const char *s, const char *suffix);

/* Seconds on a monotonic clock. */
double cli_now(void);

/* For a summary line after a GGUF was written to out (or to standard output):
 * *size = its size in bytes (0 when unknown: stdout not a regular file),
 * *nkv = its metadata key count (-1 when not read back: stdout). */
void cli_written_gguf(const char *out, int to_stdout, uint64_t *size, int64_t *nkv);
/* The process's peak resident set size in bytes. */
uint64_t cli_peak_rss(void);

#endif

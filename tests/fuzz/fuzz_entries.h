/* fuzz_entries.h - the bodies of the libFuzzer targets, shared by the
 * fuzzers (tests/fuzz/fuzz_NAME.c, built by `make fuzz` with clang) and by
 * the Criterion suite `fuzz_corpus`, which replays the seed and regression
 * corpora under ASan + UBSan in `make test`.
 *
 * Each entry feeds one input to a parser and checks what the parser
 * promises, not only that it does not crash (docs/fuzzing.md lists the
 * invariants).  A violated invariant prints one line naming it on stderr and
 * calls abort(), which libFuzzer reports as a crash and Criterion as a
 * crashed test.  Every entry returns 0 (libFuzzer's "input processed"). */
#ifndef DDIOSIM_TESTS_FUZZ_ENTRIES_H
#define DDIOSIM_TESTS_FUZZ_ENTRIES_H

#include <stddef.h>
#include <stdint.h>

/* The bytes are a capture file (pcap / pcapng), read to the end through
 * traces/pcap.h, in lockstep with libpcap itself; they are also classified
 * as one raw frame of every supported link type by trace_parse_frame(). */
int fuzz_pcap(const uint8_t *d, size_t n);
/* The bytes are a JSON text, loaded both as a machine and as a workload. */
int fuzz_config(const uint8_t *d, size_t n);
/* The bytes are a din trace: parsed line by line and streamed by din_next(). */
int fuzz_din(const uint8_t *d, size_t n);
/* The bytes are measured files of validate/: an NPF result file
 * (vd_npf_read), the CSV of pcm-pcie (vd_pcm_read), the output of
 * perf stat -x, (vd_perf_read). */
int fuzz_npf(const uint8_t *d, size_t n);
int fuzz_pcm(const uint8_t *d, size_t n);
int fuzz_perf(const uint8_t *d, size_t n);
/* The bytes are the experiment.json of a folder that also holds a few fixed
 * measured files (vd_experiment_load). */
int fuzz_experiment(const uint8_t *d, size_t n);

/* The bytes are a sweep spec (sw_spec_parse) and an advise query
 * (ad_spec_parse): one-line errors naming the file, or a grid that keeps
 * its promises (point count, distinct values, stable ids, filter 0 / 1). */
int fuzz_sweep(const uint8_t *d, size_t n);

/* The bytes are a sweep results file: read by `plot`'s table reader
 * (sw_table_parse) and by `sweep --resume`'s scan (sw_resume_scan), as
 * given and behind the header of a fixed run, in CSV and JSONL. */
int fuzz_results(const uint8_t *d, size_t n);

#endif

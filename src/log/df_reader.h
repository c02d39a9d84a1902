// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Streaming DataFlash reader: feed it bytes in any chunking, take records out.
 *
 * It learns each type from its FMT record as the FMT arrives (FMTs may sit anywhere,
 * interleaved with data), decodes fields by their format letters, resynchronises on
 * bytes that are not a record of a known type (counting them in skipped_bytes), and
 * at the end of input drops a partial last record (counting it in truncated_bytes).
 *
 * No allocation: struct df_reader is caller storage (about 40 KiB, so keep it off
 * small stacks). One reader belongs to one thread; it is not meant for the flight
 * threads (it serves tools, tests and log download).
 */
#ifndef FULMAR_LOG_DF_READER_H
#define FULMAR_LOG_DF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/df_format.h"

/* A type as its FMT described it; strings are NUL-terminated copies. */
struct df_fmt {
	uint8_t type;
	uint8_t length;                     /* whole record, header included */
	bool fields_ok;                     /* format letters known and sum to length */
	uint8_t nfields;
	char name[DF_NAME_LEN + 1];
	char format[DF_FORMAT_LEN + 1];
	char labels[DF_LABELS_LEN + 1];
	uint8_t offset[DF_MAX_FIELDS];      /* of each field from the record start */
	uint8_t label_off[DF_MAX_FIELDS];   /* of each column name in labels */
	uint8_t label_len[DF_MAX_FIELDS];
};

/* A record as read: data points at the whole record (header included) inside the
 * reader and stays valid until the next df_reader_feed() or df_reader_next(). */
struct df_record {
	uint8_t type;
	uint8_t length;
	const struct df_fmt *fmt;
	const uint8_t *data;
};

#define DF_READER_BUF 4096u

struct df_reader {
	struct df_fmt fmts[256];
	bool known[256];
	uint32_t count[256];                /* complete records read, per type */
	uint64_t records;                   /* complete records read, all types */
	uint64_t skipped_bytes;             /* bytes dropped while resynchronising */
	uint64_t resyncs;                   /* runs of skipped bytes */
	uint64_t truncated_bytes;           /* partial record at end of input */
	uint64_t bad_fmts;                  /* FMT records that could not be used */
	bool skipping;
	bool eof;
	size_t head;
	size_t tail;
	uint8_t buf[DF_READER_BUF];
};

void df_reader_init(struct df_reader *r);

/* Appends up to len bytes; returns how many were taken (0 when the buffer is full of
 * unread records: call df_reader_next() first). */
size_t df_reader_feed(struct df_reader *r, const uint8_t *data, size_t len);

/* No more input: a partial record left over is dropped and counted. */
void df_reader_end(struct df_reader *r);

/* 1 and *rec filled when a record is ready; 0 when more input is needed (or, after
 * df_reader_end(), when the input is exhausted). */
int df_reader_next(struct df_reader *r, struct df_record *rec);

/* Number of types with at least one complete record (FMT included). */
unsigned df_reader_type_count(const struct df_reader *r);

/* Field idx of a record, typed by its letter: 0, -EINVAL if the type's FMT was
 * unusable, -ERANGE if idx is past the last field. */
int df_record_field(const struct df_record *rec, unsigned idx, struct df_value *out);

/* Index of a column by name, or -ENOENT. */
int df_fmt_column(const struct df_fmt *fmt, const char *label);

/* The name of column idx copied NUL-terminated into out (cap ≥ 1): 0 or -ERANGE. */
int df_fmt_label(const struct df_fmt *fmt, unsigned idx, char *out, size_t cap);

#endif

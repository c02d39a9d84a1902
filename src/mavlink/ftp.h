/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MAVLink FTP server (FILE_TRANSFER_PROTOCOL, https://mavlink.io/en/services/ftp.html),
 * without sockets: requests come in through ftp_handle(), replies go out
 * through the tx callback, a burst read paced by ftp_tick().
 *
 * The tree a ground station sees (docs/mavlink.md, "MAVFTP"):
 *   /@PARAM/param.pck   every parameter in ArduPilot's packed format
 *   /@SYS/threads.txt   the scheduler's timing report (through sys_read)
 *   /APM/LOGS/          the flight logs (log_dir), read-only
 *   everything else     the writable area (root), e.g. STATE_DIR/ftp
 * Paths are resolved component by component under their directory with
 * O_NOFOLLOW: ".." and symbolic links are refused (and counted), so nothing
 * outside root and log_dir can be reached.
 *
 * Threads: it reads and writes files, so it belongs on the io thread; one
 * thread calls every function. It allocates nothing: the sessions and their
 * snapshots of virtual files are in the struct.
 */
#ifndef FULMAR_MAVLINK_FTP_H
#define FULMAR_MAVLINK_FTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FTP_PAYLOAD_LEN 251u      /* FILE_TRANSFER_PROTOCOL's payload field */
#define FTP_HEADER_LEN 12u
#define FTP_DATA_MAX 239u         /* FTP_PAYLOAD_LEN - FTP_HEADER_LEN */
#define FTP_SESSIONS 4u
#define FTP_LINKS 8u              /* GCS_MAX_LINKS */
#define FTP_VFILE_MAX 32768u      /* a virtual file's snapshot */
#define FTP_BURST_PACKETS 1024u   /* one burst request: at most this many replies (245 kB) */
#define FTP_WRITE_MAX (64u << 20) /* a file written in the writable area ends below this */
#define FTP_CRC_STEP (64u * 1024u)  /* bytes of a CRC32 per ftp_tick: the io thread never stalls */
#define FTP_PATH_MAX 240u

/* MAV_FTP_OPCODE */
enum ftp_opcode {
	FTP_OP_NONE = 0,
	FTP_OP_TERMINATE_SESSION = 1,
	FTP_OP_RESET_SESSIONS = 2,
	FTP_OP_LIST_DIRECTORY = 3,
	FTP_OP_OPEN_FILE_RO = 4,
	FTP_OP_READ_FILE = 5,
	FTP_OP_CREATE_FILE = 6,
	FTP_OP_WRITE_FILE = 7,
	FTP_OP_REMOVE_FILE = 8,
	FTP_OP_CREATE_DIRECTORY = 9,
	FTP_OP_REMOVE_DIRECTORY = 10,
	FTP_OP_OPEN_FILE_WO = 11,
	FTP_OP_TRUNCATE_FILE = 12,
	FTP_OP_RENAME = 13,
	FTP_OP_CALC_FILE_CRC32 = 14,
	FTP_OP_BURST_READ_FILE = 15,
	FTP_OP_ACK = 128,
	FTP_OP_NAK = 129,
};

/* MAV_FTP_ERR, the first data byte of a NAK */
enum ftp_err {
	FTP_ERR_NONE = 0,
	FTP_ERR_FAIL = 1,
	FTP_ERR_FAIL_ERRNO = 2,       /* the second data byte is the errno */
	FTP_ERR_INVALID_DATA_SIZE = 3,
	FTP_ERR_INVALID_SESSION = 4,
	FTP_ERR_NO_SESSIONS_AVAILABLE = 5,
	FTP_ERR_EOF = 6,
	FTP_ERR_UNKNOWN_COMMAND = 7,
	FTP_ERR_FILE_EXISTS = 8,
	FTP_ERR_FILE_PROTECTED = 9,
	FTP_ERR_FILE_NOT_FOUND = 10,
};

/* The payload's header, as the spec lays it out (little-endian). */
struct ftp_msg {
	uint16_t seq;
	uint8_t session;
	uint8_t opcode;
	uint8_t size;
	uint8_t req_opcode;
	uint8_t burst_complete;
	uint32_t offset;
	uint8_t data[FTP_DATA_MAX];
};

void ftp_msg_unpack(const uint8_t payload[FTP_PAYLOAD_LEN], struct ftp_msg *m);
void ftp_msg_pack(const struct ftp_msg *m, uint8_t payload[FTP_PAYLOAD_LEN]);

/* Where replies go: a packed FILE_TRANSFER_PROTOCOL for one link (gcs_tx's shape). */
struct ftp_tx {
	void (*send)(void *ctx, int link, uint32_t msgid, const uint8_t *payload);
	void *ctx;
};

struct ftp_config {
	const char *root;         /* the writable area; NULL: none (writes refused) */
	const char *log_dir;      /* shown read-only as /APM/LOGS; NULL: none */
	uint8_t sysid, compid;    /* ours: requests for others are not answered */
	/*
	 * An @SYS file's text into buf (at most len bytes, no NUL needed):
	 * returns its length or -ENOENT. NULL: no @SYS files. names: what
	 * @SYS lists, NULL-terminated.
	 */
	long (*sys_read)(void *ctx, const char *name, char *buf, size_t len);
	const char *const *sys_names;
	void *sys_ctx;
};

struct ftp_stats {
	uint64_t requests;        /* for us */
	uint64_t not_for_us;
	uint64_t retries;         /* a repeated request answered with the same reply */
	uint64_t naks;
	uint64_t rejected;        /* malformed: bad size, offset, session, opcode */
	uint64_t escapes;         /* a path with "..", or through a symbolic link */
	uint64_t burst_packets;
	uint64_t bytes_read, bytes_written;
};

enum ftp_session_kind {
	FTP_SESSION_FREE = 0,
	FTP_SESSION_READ,          /* a file opened read-only */
	FTP_SESSION_WRITE,         /* a file of the writable area */
	FTP_SESSION_VIRTUAL,       /* a snapshot of @PARAM or @SYS, taken at open */
};

struct ftp_session {
	enum ftp_session_kind kind;
	int link;
	int fd;
	uint32_t size;             /* read and virtual: the size at open */
	uint32_t vlen;
	uint8_t vbuf[FTP_VFILE_MAX];
};

struct ftp_link {
	bool have_last;
	uint8_t last_req[FTP_PAYLOAD_LEN];    /* the last request, as it came */
	uint8_t last_reply[FTP_PAYLOAD_LEN];  /* and the reply it got */
	uint8_t peer_sys, peer_comp;
};

struct ftp_burst {
	bool active;
	int link;
	uint8_t peer_sys, peer_comp;
	uint8_t session;
	uint8_t chunk;             /* bytes per reply */
	uint16_t seq;              /* of the next reply */
	uint32_t offset;
	unsigned int left;         /* replies still allowed in this burst */
};

struct ftp_crc_job {
	bool active;
	int link;
	int fd;
	uint8_t peer_sys, peer_comp;
	uint8_t req[FTP_PAYLOAD_LEN];
	uint32_t crc;
	uint64_t done;
};

struct ftp {
	struct ftp_config cfg;
	struct ftp_tx tx;
	struct ftp_session session[FTP_SESSIONS];
	struct ftp_link link[FTP_LINKS];
	struct ftp_burst burst;
	struct ftp_crc_job crc;
	uint8_t crc_vbuf[FTP_VFILE_MAX];  /* a virtual file's CRC, a listing's sizes */
	struct ftp_stats stats;
};

/* cfg's strings must outlive f. */
void ftp_init(struct ftp *f, const struct ftp_config *cfg, const struct ftp_tx *tx);
/*
 * A FILE_TRANSFER_PROTOCOL from (sys, comp) on link (its packed message
 * payload, len bytes as it came: short frames are zero-extended).
 */
void ftp_handle(struct ftp *f, int link, uint8_t sys, uint8_t comp, const uint8_t *payload,
		size_t len);
/* Sends up to max_msgs replies of a burst (or finishes a CRC); returns how many were sent. */
unsigned int ftp_tick(struct ftp *f, unsigned int max_msgs);
/* Whether a burst or a CRC is under way. */
bool ftp_is_busy(const struct ftp *f);
/* Closes every session. */
void ftp_fini(struct ftp *f);

/*
 * @PARAM/param.pck into buf: ArduPilot's packed parameters (magic 0x671b, or
 * 0x671c with defaults), query the text after '?' ("withdefaults=1",
 * "start=N", "count=N"; NULL none). Entries never cross a 239-byte block.
 * Returns the length or -ENOSPC.
 */
long ftp_param_pack(const char *query, uint8_t *buf, size_t len);
/* CRC32 as MAVLink FTP computes it (reflected 0xEDB88320, from crc, no final xor). */
uint32_t ftp_crc32(uint32_t crc, const void *data, size_t len);

#endif

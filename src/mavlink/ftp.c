// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The MAVLink FTP server's protocol: the payload, replies, sessions, a request
 * and its retry, the burst and CRC jobs ftp_tick paces. The operations are in
 * ftp_ops.c, paths in ftp_path.c, @PARAM/param.pck in ftp_param.c.
 */
#include "mavlink/ftp_internal.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "mavlink/wire.h"
#include "mavlink_msgs.h"

/* --- the payload ---------------------------------------------------------- */

void ftp_msg_unpack(const uint8_t payload[FTP_PAYLOAD_LEN], struct ftp_msg *m)
{
	m->seq = (uint16_t)(payload[0] | payload[1] << 8);
	m->session = payload[2];
	m->opcode = payload[3];
	m->size = payload[4];
	m->req_opcode = payload[5];
	m->burst_complete = payload[6];
	m->offset = (uint32_t)payload[8] | (uint32_t)payload[9] << 8 |
		    (uint32_t)payload[10] << 16 | (uint32_t)payload[11] << 24;
	memcpy(m->data, payload + FTP_HEADER_LEN, FTP_DATA_MAX);
}

void ftp_msg_pack(const struct ftp_msg *m, uint8_t payload[FTP_PAYLOAD_LEN])
{
	wire_put_u16(payload, m->seq);
	payload[2] = m->session;
	payload[3] = m->opcode;
	payload[4] = m->size;
	payload[5] = m->req_opcode;
	payload[6] = m->burst_complete;
	payload[7] = 0;
	wire_put_u32(payload + 8, m->offset);
	memcpy(payload + FTP_HEADER_LEN, m->data, FTP_DATA_MAX);
}

uint32_t ftp_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? crc >> 1 ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

/* --- replies -------------------------------------------------------------- */

static void send_reply(struct ftp *f, int link, uint8_t sys, uint8_t comp,
		       const uint8_t payload[FTP_PAYLOAD_LEN])
{
	struct mavlink_file_transfer_protocol m = { .target_network = 0, .target_system = sys,
						    .target_component = comp };
	memcpy(m.payload, payload, FTP_PAYLOAD_LEN);
	uint8_t p[MAVLINK_MSG_FILE_TRANSFER_PROTOCOL_MAX_LEN];
	mavlink_file_transfer_protocol_pack(&m, p);
	f->tx.send(f->tx.ctx, link, MAVLINK_MSG_ID_FILE_TRANSFER_PROTOCOL, p);
}

static void reply_init(const struct ftp_msg *req, struct ftp_msg *r)
{
	memset(r, 0, sizeof(*r));
	r->seq = (uint16_t)(req->seq + 1);
	r->session = req->session;
	r->opcode = FTP_OP_ACK;
	r->req_opcode = req->opcode;
	r->offset = req->offset;
}

void ftp_nak(struct ftp *f, struct ftp_msg *r, enum ftp_err err, int e)
{
	r->opcode = FTP_OP_NAK;
	r->size = 1;
	r->data[0] = (uint8_t)err;
	if (err == FTP_ERR_FAIL_ERRNO) {
		r->size = 2;
		r->data[1] = (uint8_t)e;
	}
	f->stats.naks++;
}

/* A malformed request: said with its NAK, and counted apart from a plain "no". */
void ftp_reject(struct ftp *f, struct ftp_msg *r, enum ftp_err err)
{
	f->stats.rejected++;
	ftp_nak(f, r, err, 0);
}

static enum ftp_err errno_err(int e)
{
	switch (e) {
	case ENOENT: case ENOTDIR: return FTP_ERR_FILE_NOT_FOUND;
	case EEXIST: return FTP_ERR_FILE_EXISTS;
	case EACCES: case EPERM: case EROFS: return FTP_ERR_FILE_PROTECTED;
	default: return FTP_ERR_FAIL_ERRNO;
	}
}

void ftp_nak_errno(struct ftp *f, struct ftp_msg *r, int e)
{
	ftp_nak(f, r, e == ELOOP ? FTP_ERR_FILE_PROTECTED : errno_err(e), e);
}

/* --- sessions ------------------------------------------------------------- */

void ftp_session_close(struct ftp *f, unsigned int s)
{
	struct ftp_session *ss = &f->session[s];
	if (ss->kind == FTP_SESSION_READ || ss->kind == FTP_SESSION_WRITE)
		close(ss->fd);
	ss->kind = FTP_SESSION_FREE;
	ss->fd = -1;
	if (f->burst.active && f->burst.session == s)
		f->burst.active = false;
}

int ftp_session_free(const struct ftp *f)
{
	for (unsigned int s = 0; s < FTP_SESSIONS; s++)
		if (f->session[s].kind == FTP_SESSION_FREE)
			return (int)s;
	return -1;
}

/* The request's session when it is open and this link's, else NULL (and the NAK). */
struct ftp_session *ftp_session_of(struct ftp *f, int link, const struct ftp_msg *req,
				   struct ftp_msg *r)
{
	if (req->session >= FTP_SESSIONS || f->session[req->session].kind == FTP_SESSION_FREE ||
	    f->session[req->session].link != link) {
		ftp_reject(f, r, FTP_ERR_INVALID_SESSION);
		return NULL;
	}
	return &f->session[req->session];
}

/* Reads up to n bytes of a session at ofs into out; the count, or -errno. */
long ftp_session_read(const struct ftp_session *ss, uint32_t ofs, uint8_t *out, size_t n)
{
	if (ss->kind == FTP_SESSION_VIRTUAL) {
		if (ofs >= ss->vlen)
			return 0;
		size_t k = ss->vlen - ofs < n ? ss->vlen - ofs : n;
		memcpy(out, ss->vbuf + ofs, k);
		return (long)k;
	}
	ssize_t k = pread(ss->fd, out, n, (off_t)ofs);
	return k < 0 ? -errno : (long)k;
}

/* --- the server ----------------------------------------------------------- */

void ftp_init(struct ftp *f, const struct ftp_config *cfg, const struct ftp_tx *tx)
{
	memset(f, 0, sizeof(*f));
	f->cfg = *cfg;
	f->tx = *tx;
	for (unsigned int s = 0; s < FTP_SESSIONS; s++)
		f->session[s].fd = -1;
}

void ftp_handle(struct ftp *f, int link, uint8_t sys, uint8_t comp, const uint8_t *payload,
		size_t len)
{
	struct mavlink_file_transfer_protocol m;
	mavlink_file_transfer_protocol_unpack(payload, len, &m);
	if ((m.target_system != 0 && m.target_system != f->cfg.sysid) ||
	    (m.target_component != 0 && m.target_component != f->cfg.compid)) {
		f->stats.not_for_us++;
		return;
	}
	if (link < 0 || link >= (int)FTP_LINKS) {
		f->stats.rejected++;
		return;
	}
	static struct ftp_msg req, r;   /* io thread only; kept off the stack */
	ftp_msg_unpack(m.payload, &req);
	/* Our own replies (another autopilot's, routed here) are not requests. */
	if (req.opcode == FTP_OP_ACK || req.opcode == FTP_OP_NAK) {
		f->stats.rejected++;
		return;
	}
	f->stats.requests++;
	struct ftp_link *fl = &f->link[link];
	/*
	 * A request that comes again, byte for byte, is a retry: its reply was
	 * lost. It gets the same reply rather than a second run (a second
	 * OpenFileRO would take another session, a second RemoveFile would say
	 * "not found"). A burst is re-run: reading again is harmless.
	 */
	if (fl->have_last && fl->peer_sys == sys && fl->peer_comp == comp &&
	    memcmp(fl->last_req, m.payload, FTP_PAYLOAD_LEN) == 0) {
		f->stats.retries++;
		send_reply(f, link, sys, comp, fl->last_reply);
		return;
	}
	fl->have_last = false;
	reply_init(&req, &r);
	if (req.size > FTP_DATA_MAX) {
		ftp_reject(f, &r, FTP_ERR_INVALID_DATA_SIZE);
	} else if (!ftp_dispatch(f, link, sys, comp, m.payload, &req, &r)) {
		return;
	}
	memcpy(fl->last_req, m.payload, FTP_PAYLOAD_LEN);
	ftp_msg_pack(&r, fl->last_reply);
	fl->peer_sys = sys;
	fl->peer_comp = comp;
	fl->have_last = true;
	send_reply(f, link, sys, comp, fl->last_reply);
}

static void crc_step(struct ftp *f)
{
	static uint8_t buf[8192];
	struct ftp_crc_job *j = &f->crc;
	for (size_t done = 0; done < FTP_CRC_STEP; done += sizeof(buf)) {
		ssize_t n = pread(j->fd, buf, sizeof(buf), (off_t)j->done);
		if (n > 0) {
			j->crc = ftp_crc32(j->crc, buf, (size_t)n);
			j->done += (uint64_t)n;
			continue;
		}
		struct ftp_msg req, r;
		ftp_msg_unpack(j->req, &req);
		reply_init(&req, &r);
		if (n < 0) {
			ftp_nak_errno(f, &r, errno);
		} else {
			r.size = 4;
			wire_put_u32(r.data, j->crc);
		}
		close(j->fd);
		j->active = false;
		struct ftp_link *fl = &f->link[j->link];
		memcpy(fl->last_req, j->req, FTP_PAYLOAD_LEN);
		ftp_msg_pack(&r, fl->last_reply);
		fl->peer_sys = j->peer_sys;
		fl->peer_comp = j->peer_comp;
		fl->have_last = true;
		send_reply(f, j->link, j->peer_sys, j->peer_comp, fl->last_reply);
		return;
	}
}

/* One reply of the burst; false when the burst is over. */
static bool burst_step(struct ftp *f)
{
	struct ftp_burst *b = &f->burst;
	struct ftp_session *ss = &f->session[b->session];
	static struct ftp_msg r;
	static uint8_t payload[FTP_PAYLOAD_LEN];
	memset(&r, 0, sizeof(r));
	r.seq = b->seq++;
	r.session = b->session;
	r.opcode = FTP_OP_ACK;
	r.req_opcode = FTP_OP_BURST_READ_FILE;
	r.offset = b->offset;
	long n = ftp_session_read(ss, b->offset, r.data, b->chunk);
	if (n <= 0) {
		/* The end of the file (or a read error): said once, and the burst is over. */
		if (n < 0)
			ftp_nak_errno(f, &r, (int)-n);
		else
			ftp_nak(f, &r, FTP_ERR_EOF, 0);
		r.burst_complete = 1;
		b->active = false;
	} else {
		r.size = (uint8_t)n;
		b->offset += (uint32_t)n;
		b->left--;
		f->stats.bytes_read += (uint64_t)n;
		if (b->left == 0 || (uint32_t)n < b->chunk) {
			r.burst_complete = 1;
			b->active = false;
		}
	}
	f->stats.burst_packets++;
	ftp_msg_pack(&r, payload);
	send_reply(f, b->link, b->peer_sys, b->peer_comp, payload);
	return b->active;
}

unsigned int ftp_tick(struct ftp *f, unsigned int max_msgs)
{
	unsigned int sent = 0;
	if (f->crc.active && max_msgs > 0) {
		crc_step(f);
		if (!f->crc.active)
			sent++;
	}
	while (f->burst.active && sent < max_msgs) {
		burst_step(f);
		sent++;
	}
	return sent;
}

bool ftp_is_busy(const struct ftp *f)
{
	return f->burst.active || f->crc.active;
}

void ftp_fini(struct ftp *f)
{
	for (unsigned int s = 0; s < FTP_SESSIONS; s++)
		if (f->session[s].kind != FTP_SESSION_FREE)
			ftp_session_close(f, s);
	if (f->crc.active)
		close(f->crc.fd);
	f->crc.active = false;
	f->burst.active = false;
}

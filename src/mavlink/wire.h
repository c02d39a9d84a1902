/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Little-endian field access for MAVLink payloads, whatever the host's byte
 * order and alignment: the generated pack/unpack code is written in these.
 */
#ifndef FULMAR_MAVLINK_WIRE_H
#define FULMAR_MAVLINK_WIRE_H

#include <stdint.h>
#include <string.h>

static inline void wire_put_u8(uint8_t *p, uint8_t v) { p[0] = v; }
static inline void wire_put_i8(uint8_t *p, int8_t v) { p[0] = (uint8_t)v; }

static inline void wire_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void wire_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void wire_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void wire_put_i16(uint8_t *p, int16_t v) { wire_put_u16(p, (uint16_t)v); }
static inline void wire_put_i32(uint8_t *p, int32_t v) { wire_put_u32(p, (uint32_t)v); }
static inline void wire_put_i64(uint8_t *p, int64_t v) { wire_put_u64(p, (uint64_t)v); }

static inline void wire_put_f32(uint8_t *p, float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	wire_put_u32(p, u);
}

static inline void wire_put_f64(uint8_t *p, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	wire_put_u64(p, u);
}

static inline uint8_t wire_get_u8(const uint8_t *p) { return p[0]; }
static inline int8_t wire_get_i8(const uint8_t *p) { return (int8_t)p[0]; }

static inline uint16_t wire_get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t wire_get_u32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t wire_get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline int16_t wire_get_i16(const uint8_t *p) { return (int16_t)wire_get_u16(p); }
static inline int32_t wire_get_i32(const uint8_t *p) { return (int32_t)wire_get_u32(p); }
static inline int64_t wire_get_i64(const uint8_t *p) { return (int64_t)wire_get_u64(p); }

static inline float wire_get_f32(const uint8_t *p)
{
	uint32_t u = wire_get_u32(p);
	float v;
	memcpy(&v, &u, 4);
	return v;
}

static inline double wire_get_f64(const uint8_t *p)
{
	uint64_t u = wire_get_u64(p);
	double v;
	memcpy(&v, &u, 8);
	return v;
}

#endif

// SPDX-License-Identifier: GPL-3.0-or-later
/* Small 3-vector and quaternion helpers for the simulator, in double precision.
 * Quaternions are Hamilton (w, x, y, z) and rotate body vectors into NED:
 * v_ned = q * v_body * conj(q). Pure and header-only. */
#ifndef FULMAR_SIM_MATH_H
#define FULMAR_SIM_MATH_H

#include <math.h>

struct v3 {
	double x, y, z;
};

struct quat {
	double w, x, y, z;
};

static inline struct v3 v3_make(double x, double y, double z)
{
	return (struct v3){ x, y, z };
}

static inline struct v3 v3_add(struct v3 a, struct v3 b)
{
	return (struct v3){ a.x + b.x, a.y + b.y, a.z + b.z };
}

static inline struct v3 v3_sub(struct v3 a, struct v3 b)
{
	return (struct v3){ a.x - b.x, a.y - b.y, a.z - b.z };
}

static inline struct v3 v3_scale(struct v3 a, double s)
{
	return (struct v3){ a.x * s, a.y * s, a.z * s };
}

/* a + b * s */
static inline struct v3 v3_madd(struct v3 a, struct v3 b, double s)
{
	return (struct v3){ a.x + b.x * s, a.y + b.y * s, a.z + b.z * s };
}

static inline double v3_dot(struct v3 a, struct v3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline struct v3 v3_cross(struct v3 a, struct v3 b)
{
	return (struct v3){ a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}

static inline double v3_norm(struct v3 a)
{
	return sqrt(v3_dot(a, a));
}

static inline struct quat quat_identity(void)
{
	return (struct quat){ 1.0, 0.0, 0.0, 0.0 };
}

static inline struct quat quat_mul(struct quat a, struct quat b)
{
	return (struct quat){
		a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
		a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
		a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
		a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
	};
}

static inline struct quat quat_normalize(struct quat q)
{
	double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
	return (struct quat){ q.w / n, q.x / n, q.y / n, q.z / n };
}

/* Body to NED. */
static inline struct v3 quat_rotate(struct quat q, struct v3 v)
{
	/* v + 2w (u x v) + 2 u x (u x v), u = vector part */
	struct v3 u = { q.x, q.y, q.z };
	struct v3 t = v3_scale(v3_cross(u, v), 2.0);
	return v3_add(v3_madd(v, t, q.w), v3_cross(u, t));
}

/* NED to body. */
static inline struct v3 quat_rotate_inv(struct quat q, struct v3 v)
{
	struct quat c = { q.w, -q.x, -q.y, -q.z };
	return quat_rotate(c, v);
}

/* Aerospace 3-2-1 (yaw, pitch, roll) Euler angles in radians. */
static inline struct quat quat_from_euler(double roll, double pitch, double yaw)
{
	double cr = cos(roll * 0.5), sr = sin(roll * 0.5);
	double cp = cos(pitch * 0.5), sp = sin(pitch * 0.5);
	double cy = cos(yaw * 0.5), sy = sin(yaw * 0.5);
	return (struct quat){
		cr * cp * cy + sr * sp * sy,
		sr * cp * cy - cr * sp * sy,
		cr * sp * cy + sr * cp * sy,
		cr * cp * sy - sr * sp * cy,
	};
}

static inline void quat_to_euler(struct quat q, double *roll, double *pitch, double *yaw)
{
	*roll = atan2(2.0 * (q.w * q.x + q.y * q.z), 1.0 - 2.0 * (q.x * q.x + q.y * q.y));
	double s = 2.0 * (q.w * q.y - q.z * q.x);
	*pitch = asin(s > 1.0 ? 1.0 : (s < -1.0 ? -1.0 : s));
	*yaw = atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z));
}

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small float quaternion and 3x3 helpers for the estimator (internal).
 * Quaternions are Hamilton w x y z and rotate body vectors into NED. */
#ifndef FULMAR_ESTIM_MATH_H
#define FULMAR_ESTIM_MATH_H

#include <math.h>

static inline void em_quat_mul(const float a[4], const float b[4], float out[4])
{
	float r[4] = {
		a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
		a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
		a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
		a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
	};
	for (int i = 0; i < 4; i++)
		out[i] = r[i];
}

static inline void em_quat_normalize(float q[4])
{
	float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (!(n > 1e-6f)) {
		q[0] = 1.0f;
		q[1] = q[2] = q[3] = 0.0f;
		return;
	}
	if (q[0] < 0.0f)
		n = -n;  /* keep w >= 0: one representation per attitude */
	for (int i = 0; i < 4; i++)
		q[i] /= n;
}

/* Quaternion of a rotation vector (exact). */
static inline void em_quat_from_rotvec(const float v[3], float q[4])
{
	float a = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	float s;
	if (a < 1e-6f) {
		q[0] = 1.0f - a * a * 0.125f;
		s = 0.5f;
	} else {
		q[0] = cosf(0.5f * a);
		s = sinf(0.5f * a) / a;
	}
	q[1] = v[0] * s;
	q[2] = v[1] * s;
	q[3] = v[2] * s;
}

/* Rotation vector of a quaternion (shortest rotation). */
static inline void em_rotvec_from_quat(const float q[4], float v[3])
{
	float w = q[0], x = q[1], y = q[2], z = q[3];
	if (w < 0.0f) {
		w = -w;
		x = -x;
		y = -y;
		z = -z;
	}
	float s = sqrtf(x * x + y * y + z * z);
	float k = s < 1e-6f ? 2.0f : 2.0f * atan2f(s, w) / s;
	v[0] = x * k;
	v[1] = y * k;
	v[2] = z * k;
}

/* Body-to-NED rotation matrix. */
static inline void em_quat_to_dcm(const float q[4], float R[3][3])
{
	float w = q[0], x = q[1], y = q[2], z = q[3];
	R[0][0] = 1.0f - 2.0f * (y * y + z * z);
	R[0][1] = 2.0f * (x * y - w * z);
	R[0][2] = 2.0f * (x * z + w * y);
	R[1][0] = 2.0f * (x * y + w * z);
	R[1][1] = 1.0f - 2.0f * (x * x + z * z);
	R[1][2] = 2.0f * (y * z - w * x);
	R[2][0] = 2.0f * (x * z - w * y);
	R[2][1] = 2.0f * (y * z + w * x);
	R[2][2] = 1.0f - 2.0f * (x * x + y * y);
}

static inline void em_mat_vec(float R[3][3], const float v[3], float out[3])
{
	for (int i = 0; i < 3; i++)
		out[i] = R[i][0] * v[0] + R[i][1] * v[1] + R[i][2] * v[2];
}

static inline void em_mat_t_vec(float R[3][3], const float v[3], float out[3])
{
	for (int i = 0; i < 3; i++)
		out[i] = R[0][i] * v[0] + R[1][i] * v[1] + R[2][i] * v[2];
}

static inline void em_quat_from_euler(float roll, float pitch, float yaw, float q[4])
{
	float cr = cosf(roll * 0.5f), sr = sinf(roll * 0.5f);
	float cp = cosf(pitch * 0.5f), sp = sinf(pitch * 0.5f);
	float cy = cosf(yaw * 0.5f), sy = sinf(yaw * 0.5f);
	q[0] = cr * cp * cy + sr * sp * sy;
	q[1] = sr * cp * cy - cr * sp * sy;
	q[2] = cr * sp * cy + sr * cp * sy;
	q[3] = cr * cp * sy - sr * sp * cy;
}

static inline void em_quat_to_euler(const float q[4], float *roll, float *pitch, float *yaw)
{
	*roll = atan2f(2.0f * (q[0] * q[1] + q[2] * q[3]), 1.0f - 2.0f * (q[1] * q[1] + q[2] * q[2]));
	float s = 2.0f * (q[0] * q[2] - q[3] * q[1]);
	*pitch = asinf(s > 1.0f ? 1.0f : (s < -1.0f ? -1.0f : s));
	*yaw = atan2f(2.0f * (q[0] * q[3] + q[1] * q[2]), 1.0f - 2.0f * (q[2] * q[2] + q[3] * q[3]));
}

static inline float em_wrap_pi(float a)
{
	while (a > (float)M_PI)
		a -= 2.0f * (float)M_PI;
	while (a < -(float)M_PI)
		a += 2.0f * (float)M_PI;
	return a;
}

#endif

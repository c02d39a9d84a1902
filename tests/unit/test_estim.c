// SPDX-License-Identifier: GPL-3.0-or-later
/* Estimator checks on exact synthetic trajectories: the IMU delta
 * accumulator, alignment, the delayed horizon, each fusion and its gate,
 * covariance health, flags and the WGS84 conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "geo.h"

#include "estim/estim.h"
#include "estim/estim_accum.h"
#include "estim/estim_cov.h"
#include "estim/estim_math.h"

#define DEG (M_PI / 180.0)
#define D(x) ((double)(x))
#define G 9.80665
#define DECL_DEG 10.0
#define INCL_DEG (-60.0)
#define FIELD_GAUSS 0.5
#define LAT0 (-35.0)
#define LON0 149.0
#define ALT0 600.0

/* ---- the accumulator ---------------------------------------------------- */

/* Integrate a quaternion at 100 kHz from an angular-rate function. */
static void truth_rotation(void (*rate)(double t, double w[3]), double t0, double t1, float rv[3])
{
	double q[4] = { 1, 0, 0, 0 };
	int n = (int)lround((t1 - t0) * 1e5);
	double h = (t1 - t0) / n;
	for (int i = 0; i < n; i++) {
		double w[3];
		rate(t0 + (i + 0.5) * h, w);
		double a = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * h;
		double s = a > 1e-12 ? sin(a / 2) / (a / h) : h / 2;
		double dq[4] = { cos(a / 2), w[0] * s, w[1] * s, w[2] * s };
		double r[4] = {
			q[0] * dq[0] - q[1] * dq[1] - q[2] * dq[2] - q[3] * dq[3],
			q[0] * dq[1] + q[1] * dq[0] + q[2] * dq[3] - q[3] * dq[2],
			q[0] * dq[2] - q[1] * dq[3] + q[2] * dq[0] + q[3] * dq[1],
			q[0] * dq[3] + q[1] * dq[2] - q[2] * dq[1] + q[3] * dq[0],
		};
		memcpy(q, r, sizeof(q));
	}
	float qf[4] = { (float)q[0], (float)q[1], (float)q[2], (float)q[3] };
	em_rotvec_from_quat(qf, rv);
}

static void coning_rate(double t, double w[3])
{
	/* classic coning: a 2 deg cone at 20 Hz */
	double a = 2.0 * DEG, om = 2 * M_PI * 20;
	w[0] = a * om * cos(om * t);
	w[1] = a * om * sin(om * t);
	w[2] = 0;
}

static void test_accum_constant_rate_gives_the_exact_rotation(void **state)
{
	struct estim_accum a;
	estim_accum_init(&a);
	float w[3] = { 0.3f, -0.2f, 0.5f }, f[3] = { 0, 0, -9.8f };
	for (int i = 0; i < 10; i++)
		estim_accum_add(&a, w, f, 0.001f);
	float da[3], dv[3];
	float T = estim_accum_take(&a, da, dv);
	assert_true(fabsf(T - 0.01f) < 1e-6f);
	for (int i = 0; i < 3; i++)
		assert_true(fabsf(da[i] - w[i] * 0.01f) < 1e-7f);
	/* nothing left: a second take returns 0 and leaves the outputs alone */
	da[0] = 42.0f;
	assert_true(estim_accum_take(&a, da, dv) == 0.0f);
	assert_true(da[0] == 42.0f);
}

static void test_accum_coning_correction_beats_a_plain_sum(void **state)
{
	struct estim_accum a;
	estim_accum_init(&a);
	double t = 0;
	float naive[3] = { 0, 0, 0 }, f[3] = { 0, 0, 0 };
	/* one 2.5 ms filter period after a few periods of history */
	for (int k = 0; k < 4; k++) {
		float da[3], dv[3];
		estim_accum_take(&a, da, dv);
		memset(naive, 0, sizeof(naive));
		double t0 = t;
		for (int i = 0; i < 5; i++) {
			/* a gyro sample is the rate averaged over its interval */
			double w0[3], w1[3], wm[3];
			coning_rate(t, w0);
			coning_rate(t + 0.0005, wm);
			coning_rate(t + 0.001, w1);
			float w[3];
			for (int j = 0; j < 3; j++) {
				w[j] = (float)((w0[j] + 4 * wm[j] + w1[j]) / 6.0);
				naive[j] += w[j] * 0.001f;
			}
			estim_accum_add(&a, w, f, 0.001f);
			t += 0.001;
		}
		if (k == 3) {
			float rv[3];
			truth_rotation(coning_rate, t0, t, rv);
			float ra[3];
			estim_accum_take(&a, ra, dv);
			double e_acc = 0, e_naive = 0;
			for (int j = 0; j < 3; j++) {
				e_acc += (D(ra[j]) - D(rv[j])) * (D(ra[j]) - D(rv[j]));
				e_naive += (D(naive[j]) - D(rv[j])) * (D(naive[j]) - D(rv[j]));
			}
			print_message("coning 2 deg at 20 Hz over 5 ms: error %.2e rad with the correction, %.2e without\n",
				      sqrt(e_acc), sqrt(e_naive));
			assert_true(sqrt(e_acc) < 0.2 * sqrt(e_naive));
		}
	}
}

static void test_accum_rotating_body_keeps_the_inertial_velocity_change(void **state)
{
	/* A body spinning at 2 rad/s about z under a constant 10 m/s^2 force
	 * along inertial x: over 10 ms the velocity change in the start frame
	 * is (0.1, 0, 0) exactly; a plain sum of body samples misses the
	 * rotation by about w T / 2. */
	struct estim_accum a;
	estim_accum_init(&a);
	const double om = 2.0, F = 10.0;
	float sum[3] = { 0, 0, 0 };
	for (int i = 0; i < 10; i++) {
		double tm = (i + 0.5) * 0.001;
		float w[3] = { 0, 0, (float)om };
		/* the accelerometer averages the force over its interval */
		float fb[3] = { (float)(F * cos(om * tm)), (float)(-F * sin(om * tm)), 0 };
		estim_accum_add(&a, w, fb, 0.001f);
		for (int j = 0; j < 3; j++)
			sum[j] += fb[j] * 0.001f;
	}
	float da[3], dv[3];
	estim_accum_take(&a, da, dv);
	double e = hypot(D(dv[0]) - 0.1, D(dv[1]));
	double en = hypot(D(sum[0]) - 0.1, D(sum[1]));
	print_message("rotating body: velocity error %.2e m/s compensated, %.2e plain\n", e, en);
	assert_true(e < 1e-5);
	assert_true(en > 5e-4);
}

/* ---- synthetic trajectories -------------------------------------------- */

struct truth {
	double pos[3], vel[3];
	double q[4];
	double w_body[3];
	double f_body[3];
	double airspeed;
};

typedef void (*traj_fn)(double t, const void *arg, struct truth *out);

static void rot_ned_to_body(const double q[4], const double v[3], double out[3])
{
	float qf[4] = { (float)q[0], (float)q[1], (float)q[2], (float)q[3] }, R[3][3];
	em_quat_to_dcm(qf, R);
	for (int i = 0; i < 3; i++)
		out[i] = D(R[0][i]) * v[0] + D(R[1][i]) * v[1] + D(R[2][i]) * v[2];
}

static void set_euler(struct truth *t, double r, double p, double y)
{
	float q[4];
	em_quat_from_euler((float)r, (float)p, (float)y, q);
	for (int i = 0; i < 4; i++)
		t->q[i] = D(q[i]);
}

/* gravity only in the body frame */
static void specific_force(struct truth *t, const double acc_ned[3])
{
	double f[3] = { acc_ned[0], acc_ned[1], acc_ned[2] - G };
	rot_ned_to_body(t->q, f, t->f_body);
}

struct rest_arg {
	double roll, pitch, yaw;
};

static void traj_rest(double t, const void *arg, struct truth *o)
{
	const struct rest_arg *a = arg;
	memset(o, 0, sizeof(*o));
	set_euler(o, a->roll, a->pitch, a->yaw);
	double z[3] = { 0, 0, 0 };
	specific_force(o, z);
}

struct line_arg {
	double speed;
};

static void traj_line(double t, const void *arg, struct truth *o)
{
	const struct line_arg *a = arg;
	memset(o, 0, sizeof(*o));
	set_euler(o, 0, 0, 0);
	o->pos[0] = a->speed * t;
	o->vel[0] = a->speed;
	double z[3] = { 0, 0, 0 };
	specific_force(o, z);
	o->airspeed = a->speed;
}

static void traj_turntable(double t, const void *arg, struct truth *o)
{
	const double r = 20 * DEG;
	memset(o, 0, sizeof(*o));
	set_euler(o, 0, 0, remainder(r * t, 2 * M_PI));
	o->w_body[2] = r;
	double z[3] = { 0, 0, 0 };
	specific_force(o, z);
}

/* Straight and level at 20 m/s for 10 s, a 2 s roll-in (tan of the bank
 * ramping linearly), then a level coordinated turn at 30 deg of bank, in
 * still air. Heading is closed form; position is integrated once into a
 * table. */
#define TURN_V 20.0
#define TURN_T0 10.0
#define TURN_TR 2.0
#define TURN_TABLE 80000  /* 1 ms steps: 80 s */
static double turn_pos[TURN_TABLE][2];

static void turn_heading(double t, double *psi, double *psid, double *phi, double *phid)
{
	const double T = tan(30 * DEG), k = G * T / TURN_V;
	double s, sd, integ;
	if (t < TURN_T0) {
		s = 0;
		sd = 0;
		integ = 0;
	} else if (t < TURN_T0 + TURN_TR) {
		double u = t - TURN_T0;
		s = u / TURN_TR;
		sd = 1.0 / TURN_TR;
		integ = u * u / (2 * TURN_TR);
	} else {
		s = 1;
		sd = 0;
		integ = TURN_TR / 2 + (t - TURN_T0 - TURN_TR);
	}
	*psi = k * integ;
	*psid = k * s;
	*phi = atan(T * s);
	*phid = T * sd / (1 + T * T * s * s);
}

static void turn_table_build(void)
{
	double x = 0, y = 0;
	const double h = 1e-4;
	turn_pos[0][0] = turn_pos[0][1] = 0;
	for (int i = 1; i < TURN_TABLE; i++) {
		for (int k = 0; k < 10; k++) {
			double t = (i - 1) * 1e-3 + (k + 0.5) * h, psi, psid, phi, phid;
			turn_heading(t, &psi, &psid, &phi, &phid);
			x += TURN_V * cos(psi) * h;
			y += TURN_V * sin(psi) * h;
		}
		turn_pos[i][0] = x;
		turn_pos[i][1] = y;
	}
}

static void traj_turn(double t, const void *arg, struct truth *o)
{
	memset(o, 0, sizeof(*o));
	double psi, psid, phi, phid;
	turn_heading(t, &psi, &psid, &phi, &phid);
	set_euler(o, phi, 0, remainder(psi, 2 * M_PI));
	double fi = t * 1000;
	int i = (int)fi;
	if (i < 0)
		i = 0;
	if (i > TURN_TABLE - 2)
		i = TURN_TABLE - 2;
	double u = fi - i;
	o->pos[0] = turn_pos[i][0] * (1 - u) + turn_pos[i + 1][0] * u;
	o->pos[1] = turn_pos[i][1] * (1 - u) + turn_pos[i + 1][1] * u;
	o->pos[2] = -100;
	o->vel[0] = TURN_V * cos(psi);
	o->vel[1] = TURN_V * sin(psi);
	o->w_body[0] = phid;
	o->w_body[1] = psid * sin(phi);
	o->w_body[2] = psid * cos(phi);
	double acc[3] = { -TURN_V * psid * sin(psi), TURN_V * psid * cos(psi), 0 };
	specific_force(o, acc);
	o->airspeed = TURN_V;
}

/* A glide at 20 m/s down a 4 deg path, straight (with a crab) or turning
 * at a steady rate, in turbulence: the attitude and the velocity wobble by
 * sums of sines (2-6 deg, 0.3-0.5 m/s, 0.7-2.9 Hz; up to 3 m/s^2), all
 * closed form so the IMU, GPS and compass agree exactly. */
struct glide_arg {
	double turn_rad_s;      /* course rate */
	double crab_rad;        /* heading minus course */
	double course0_rad;
	double turb;            /* scale of the wobbles, 1: as above */
	double t_off;           /* where in the wobbles the run starts, s */
};

struct wobble {
	double a, hz, ph;
};

static double wob(const struct wobble *w, int n, double t, double scale, double *rate)
{
	double v = 0, d = 0;
	for (int i = 0; i < n; i++) {
		double om = 2 * M_PI * w[i].hz;
		v += w[i].a * sin(om * t + w[i].ph);
		d += w[i].a * om * cos(om * t + w[i].ph);
	}
	*rate = d * scale;
	return v * scale;
}

static void traj_glide(double t, const void *arg, struct truth *o)
{
	static const struct wobble roll[] = { { 4 * DEG, 0.9, 0.3 }, { 2.5 * DEG, 2.3, 1.7 } };
	static const struct wobble pitch[] = { { 2 * DEG, 1.1, 2.1 }, { 1.5 * DEG, 2.9, 0.5 } };
	static const struct wobble yaw[] = { { 1.5 * DEG, 0.7, 1.1 } };
	static const struct wobble vn[] = { { 0.5, 0.8, 0.9 } }, ve[] = { { 0.5, 1.0, 2.5 } },
				   vd[] = { { 0.4, 1.2, 0.2 } };
	const struct glide_arg *a = arg;
	t += a->t_off;
	const double V = 20, gam = 4 * DEG, vh = V * cos(gam), vdn = V * sin(gam), W = a->turn_rad_s;
	memset(o, 0, sizeof(*o));
	double chi = a->course0_rad + W * (t - a->t_off);
	double dphi, dth, dpsi, g1, g2, g3;
	double phi = atan(vh * W / G) + wob(roll, 2, t, a->turb, &dphi);
	double th = 2 * DEG + wob(pitch, 2, t, a->turb, &dth);
	double psi = chi + a->crab_rad + wob(yaw, 1, t, a->turb, &dpsi);
	dpsi += W;
	set_euler(o, phi, th, remainder(psi, 2 * M_PI));
	o->w_body[0] = dphi - dpsi * sin(th);
	o->w_body[1] = dth * cos(phi) + dpsi * cos(th) * sin(phi);
	o->w_body[2] = -dth * sin(phi) + dpsi * cos(th) * cos(phi);
	o->vel[0] = vh * cos(chi) + wob(vn, 1, t, a->turb, &g1);
	o->vel[1] = vh * sin(chi) + wob(ve, 1, t, a->turb, &g2);
	o->vel[2] = vdn + wob(vd, 1, t, a->turb, &g3);
	double acc[3] = { -vh * W * sin(chi) + g1, vh * W * cos(chi) + g2, g3 };
	/* position: the closed-form integral (the wobbles' from their start) */
	const struct wobble *wv[3] = { vn, ve, vd };
	for (int i = 0; i < 3; i++) {
		double om = 2 * M_PI * wv[i]->hz;
		o->pos[i] = -a->turb * wv[i]->a / om * (cos(om * t + wv[i]->ph) - cos(om * a->t_off + wv[i]->ph));
	}
	double tr = t - a->t_off;
	if (fabs(W) > 1e-9) {
		o->pos[0] += vh * (sin(chi) - sin(a->course0_rad)) / W;
		o->pos[1] += -vh * (cos(chi) - cos(a->course0_rad)) / W;
	} else {
		o->pos[0] += vh * tr * cos(chi);
		o->pos[1] += vh * tr * sin(chi);
	}
	o->pos[2] += -100 + vdn * tr;
	specific_force(o, acc);
	o->airspeed = V;
}

struct synth {
	struct estim e;
	traj_fn fn;
	const void *arg;
	double t;               /* seconds from start */
	uint64_t t0_us;
	double gps_delay_s;
	uint64_t imu_us;        /* the IMU's interval (1 ms) */
	uint64_t gps_us;        /* the GPS's (200 ms) */
	bool all_fresh;         /* baro, compass and airspeed with every IMU sample, as some simulators send them */
	bool no_gps, no_mag, no_baro, no_airspeed;
	float baro_hold_pa;     /* a stuck barometer's pressure (0: none) */
	double airspeed_offset; /* added to the truth's airspeed (a gust the inertial path does not see) */
	double gps_offset_n;
	double accel_bias[3], accel_scale;   /* the accelerometer's error (scale 0: none) */
	double accel_range;     /* full scale, m/s^2: a reading clips there (0: none) */
	bool gps_after_imu;     /* each fix pushed after the next IMU sample, as the daemon's main
	                         * loop reads the IMU's backlog first and the latest fix after it */
	bool gps_held;
	struct gps_fix held;
	uint32_t rng;
	/* the pitot's reading (m/s, negative: pressure the wrong way) from the
	 * true airspeed, when set: a failing sensor */
	double (*pitot)(struct synth *s, double v_true);
	void *pitot_ctx;
};

/* A sensor's last bit: exact synthetic samples would repeat exactly, which
 * the estimator rightly takes for a stuck IMU. Uniform in [-1, 1). */
static double dither(uint32_t *r)
{
	*r = *r * 1664525u + 1013904223u;
	return (double)(*r >> 8) / 8388608.0 - 1.0;
}

static void synth_init(struct synth *s, traj_fn fn, const void *arg, const struct estim_config *c)
{
	memset(s, 0, sizeof(*s));
	estim_init(&s->e, c);
	s->fn = fn;
	s->arg = arg;
	s->t0_us = 5000000;
	s->gps_delay_s = 0.15;
	s->imu_us = 1000;
	s->gps_us = 200000;
}

static void cfg_default(struct estim_config *c)
{
	estim_config_default(c);
	c->mag_declination_deg = (float)DECL_DEG;
}

static void mag_earth(double m[3])
{
	double d = DECL_DEG * DEG, i = INCL_DEG * DEG;
	m[0] = FIELD_GAUSS * cos(i) * cos(d);
	m[1] = FIELD_GAUSS * cos(i) * sin(d);
	m[2] = FIELD_GAUSS * sin(i);
}

/* A sensor of this period is due: the first IMU sample at or after each multiple of it. */
static bool due_at(const struct synth *s, uint64_t us, uint64_t period_us)
{
	return s->all_fresh || us % period_us < s->imu_us;
}

/* Run the trajectory for dur seconds with every sensor: the IMU at its
 * interval (1 kHz unless set), baro and airspeed at 50 Hz, compass at
 * 100 Hz, GPS at 5 Hz (or all three slow ones with every IMU sample). */
static void synth_run(struct synth *s, double dur)
{
	long n = lround(dur * 1e6 / (double)s->imu_us);
	for (long k = 0; k < n; k++) {
		s->t += (double)s->imu_us * 1e-6;
		uint64_t us = (uint64_t)llround(s->t * 1e6);
		uint64_t t_us = s->t0_us + us;
		struct truth tr;
		/* the IMU reports the average over its last interval */
		s->fn(s->t - 0.5e-6 * (double)s->imu_us, s->arg, &tr);
		struct imu_sample is = { .t_us = t_us };
		for (int i = 0; i < 3; i++) {
			is.gyro_rad_s[i] = (float)(tr.w_body[i] + 1e-5 * dither(&s->rng));
			double sc = s->accel_scale != 0.0 ? s->accel_scale : 1.0;
			double a = tr.f_body[i] * sc + s->accel_bias[i] + 1e-4 * dither(&s->rng);
			if (s->accel_range > 0.0)
				a = fmax(-s->accel_range, fmin(s->accel_range, a));
			is.accel_m_s2[i] = (float)a;
		}
		estim_push_imu(&s->e, &is);
		if (s->gps_held) {
			estim_push_gps(&s->e, &s->held);
			s->gps_held = false;
		}
		s->fn(s->t, s->arg, &tr);
		double h = ALT0 - tr.pos[2];
		float p = (float)(101325.0 * pow(1.0 - h / 44330.77, 1.0 / 0.190263));
		if (due_at(s, us, 20000) && !s->no_baro) {
			/* the last bits' noise of a real sensor (0-0.1 Pa, no RNG drawn): a
			 * pressure the same 20 times over is a stuck baro (estim_baro.c) */
			struct baro_sample b = { t_us, p + 0.05f * (float)((us / 20000u) % 3u), 15.0f };
			if (s->baro_hold_pa > 0.0f)
				b.pressure_pa = s->baro_hold_pa;
			estim_push_baro(&s->e, &b);
		}
		if (due_at(s, us, 10000) && !s->no_mag) {
			double me[3], mb[3];
			mag_earth(me);
			rot_ned_to_body(tr.q, me, mb);
			struct mag_sample m = { .t_us = t_us };
			for (int i = 0; i < 3; i++)
				m.field_ut[i] = (float)(mb[i] * 100.0);
			estim_push_mag(&s->e, &m);
		}
		if (due_at(s, us, 20000) && tr.airspeed > 0 && !s->no_airspeed) {
			double rho = D(p) / (287.05 * 288.15);
			double v = tr.airspeed + s->airspeed_offset;
			if (s->pitot)
				v = s->pitot(s, tr.airspeed);
			struct airspeed_sample a = { t_us, (float)(0.5 * rho * v * fabs(v)), 15.0f };
			estim_push_airspeed(&s->e, &a);
		}
		if (us % s->gps_us < s->imu_us && !s->no_gps && s->t > s->gps_delay_s) {
			struct truth g;
			s->fn(s->t - s->gps_delay_s, s->arg, &g);
			struct gps_fix f;
			memset(&f, 0, sizeof(f));
			f.t_us = t_us;
			f.fix = GPS_FIX_3D;
			f.num_sv = 12;
			f.lat_deg = LAT0 + (g.pos[0] + s->gps_offset_n) / 110946.0;
			f.lon_deg = LON0 + g.pos[1] / (111319.5 * cos(LAT0 * DEG));
			f.alt_msl_m = (float)(ALT0 - g.pos[2]);
			for (int i = 0; i < 3; i++)
				f.vel_ned_m_s[i] = (float)g.vel[i];
			f.vel_down_valid = true;
			f.h_acc_m = 0.8f;
			f.v_acc_m = 1.2f;
			f.s_acc_m_s = 0.2f;
			if (s->gps_after_imu) {
				s->held = f;
				s->gps_held = true;
			} else {
				estim_push_gps(&s->e, &f);
			}
		}
	}
}

/* Errors of the published state against the truth now. */
static void synth_errors(const struct synth *s, double *att_deg, double *yaw_deg, double *pos_m, double *vel_m_s)
{
	struct truth tr;
	s->fn(s->t, s->arg, &tr);
	struct vehicle_state vs;
	estim_get_state(&s->e, &vs);
	float qt[4] = { (float)tr.q[0], (float)tr.q[1], (float)tr.q[2], (float)tr.q[3] };
	float r, p, y;
	em_quat_to_euler(qt, &r, &p, &y);
	*att_deg = fmax(fabs(D(vs.roll_rad - r)), fabs(D(vs.pitch_rad - p))) / DEG;
	*yaw_deg = fabs(remainder(D(vs.yaw_rad - y), 2 * M_PI)) / DEG;
	/* the synthetic GPS uses a flat-earth scale; use the same one back */
	double en = (vs.lat_deg - LAT0) * 110946.0 - tr.pos[0];
	double ee = (vs.lon_deg - LON0) * 111319.5 * cos(LAT0 * DEG) - tr.pos[1];
	*pos_m = hypot(en, ee);
	*vel_m_s = sqrt(pow(D(vs.vel_ned_m_s[0]) - tr.vel[0], 2) + pow(D(vs.vel_ned_m_s[1]) - tr.vel[1], 2) +
			pow(D(vs.vel_ned_m_s[2]) - tr.vel[2], 2));
}

static void test_estim_aligns_tilt_and_heading_at_rest(void **state)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	struct rest_arg a = { 10 * DEG, -5 * DEG, 60 * DEG };
	synth_init(&s, traj_rest, &a, &c);
	assert_int_equal(estim_ekf_flags(&s.e), ESTIM_EKF_UNINITIALIZED);
	s.no_gps = true;
	synth_run(&s, 0.5);
	assert_false(estim_health(&s.e) & ESTIM_H_ALIGNED);
	synth_run(&s, 1.0);
	uint32_t h = estim_health(&s.e);
	assert_true(h & ESTIM_H_ALIGNED);
	assert_true(h & ESTIM_H_YAW_ALIGNED);
	/* no GPS yet: attitude, constant-position mode */
	uint16_t f = estim_ekf_flags(&s.e);
	assert_true(f & ESTIM_EKF_ATTITUDE);
	assert_true(f & ESTIM_EKF_CONST_POS_MODE);
	assert_false(f & ESTIM_EKF_POS_HORIZ_ABS);
	struct vehicle_state vs;
	estim_get_state(&s.e, &vs);
	print_message("aligned at rest: roll %.3f pitch %.3f yaw %.3f deg (true 10, -5, 60)\n",
		      D(vs.roll_rad) / DEG, D(vs.pitch_rad) / DEG, D(vs.yaw_rad) / DEG);
	assert_true(fabs(D(vs.roll_rad) / DEG - 10) < 0.1);
	assert_true(fabs(D(vs.pitch_rad) / DEG + 5) < 0.1);
	assert_true(fabs(D(vs.yaw_rad) / DEG - 60) < 0.3);
	assert_true(isnan(vs.lat_deg));
	assert_false(vs.valid & VEHICLE_POSITION_VALID);
	assert_true(vs.valid & VEHICLE_ATTITUDE_VALID);
	/* GPS arrives: origin, absolute position, converged */
	s.no_gps = false;
	synth_run(&s, 20.0);
	f = estim_ekf_flags(&s.e);
	assert_true(f & ESTIM_EKF_POS_HORIZ_ABS);
	assert_false(f & ESTIM_EKF_CONST_POS_MODE);
	assert_true(estim_is_converged(&s.e));
	double ea, ey, ep, ev;
	synth_errors(&s, &ea, &ey, &ep, &ev);
	assert_true(ea < 0.1 && ey < 0.3 && ep < 0.1 && ev < 0.05);
}

/* An accelerometer at the edge of its data sheet (3 sigma of a 0.02 g bias
 * and of a 1 % scale error, both along gravity: |f| 0.9 m/s^2 off g) still
 * aligns at rest; 0.5 m/s^2 of tolerance refused it for good. */
static void test_estim_aligns_at_rest_with_an_imu_at_its_tolerance(void **state)
{
	(void)state;
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	struct rest_arg a = { 0, 0, 30 * DEG };
	synth_init(&s, traj_rest, &a, &c);
	s.accel_bias[2] = -0.06 * 9.80665;
	s.accel_scale = 1.03;
	s.no_gps = true;
	synth_run(&s, 1.5);
	assert_true(estim_health(&s.e) & ESTIM_H_ALIGNED);
	/* a tilt within a degree of level: the bias and scale along gravity do
	 * not tilt it */
	struct vehicle_state vs;
	estim_get_state(&s.e, &vs);
	assert_true(fabs(D(vs.roll_rad) / DEG) < 1.0 && fabs(D(vs.pitch_rad) / DEG) < 1.0);
}

/* ---- alignment in the air ------------------------------------------------ */

struct air_run {
	double aligned_s, att_valid_s, converged_s;   /* from the first sample; -1: never */
	double tilt_err0_deg, tilt_sigma0_deg, yaw_err0_deg;   /* at alignment */
	double att5, yaw5;                            /* errors 5 s after the start */
	double worst_att, worst_yaw, worst_vel;       /* from 5 s to 30 s */
};

static void air_start(const struct glide_arg *a, bool no_mag, struct air_run *r)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	synth_init(&s, traj_glide, a, &c);
	s.no_mag = no_mag;
	memset(r, 0, sizeof(*r));
	r->aligned_s = r->att_valid_s = r->converged_s = -1;
	double ea, ey, ep, ev;
	while (s.t < 30.0) {
		synth_run(&s, 0.01);
		if (r->aligned_s < 0 && (estim_health(&s.e) & ESTIM_H_ALIGNED)) {
			r->aligned_s = s.t;
			synth_errors(&s, &ea, &ey, &ep, &ev);
			struct estim_status st;
			estim_get_status(&s.e, &st);
			r->tilt_err0_deg = ea;
			r->yaw_err0_deg = ey;
			r->tilt_sigma0_deg = D(st.tilt_sigma_rad) / DEG;
			assert_true(st.health & ESTIM_H_MOVING_ALIGN);
		}
		if (r->att_valid_s < 0 && (estim_ekf_flags(&s.e) & ESTIM_EKF_ATTITUDE))
			r->att_valid_s = s.t;
		if (r->converged_s < 0 && estim_is_converged(&s.e))
			r->converged_s = s.t;
		if (fabs(s.t - 5.0) < 0.005) {
			synth_errors(&s, &ea, &ey, &ep, &ev);
			r->att5 = ea;
			r->yaw5 = ey;
		}
		if (s.t >= 5.0) {
			synth_errors(&s, &ea, &ey, &ep, &ev);
			r->worst_att = fmax(r->worst_att, ea);
			r->worst_yaw = fmax(r->worst_yaw, ey);
			r->worst_vel = fmax(r->worst_vel, ev);
		}
	}
}

static void air_check(const char *what, const struct glide_arg *a, bool no_mag, double yaw_tol_deg,
		      double max_aligned_s, double max_converged_s)
{
	double worst_err0 = 0, worst_ratio = 0, worst_valid = 0, worst_conv = 0;
	for (int k = 0; k < 6; k++) {
		struct glide_arg ak = *a;
		ak.t_off = 1.37 * k;
		ak.course0_rad = a->course0_rad + 1.1 * k;
		struct air_run r;
		air_start(&ak, no_mag, &r);
		print_message("%s, start %d: aligned %.2f s (tilt %.2f deg off, sigma %.2f; yaw %.2f off), attitude valid "
			      "%.2f s, converged %.2f s; at 5 s: attitude %.2f yaw %.2f deg; 5-30 s worst: attitude %.2f "
			      "yaw %.2f deg, velocity %.2f m/s\n",
			      what, k, r.aligned_s, r.tilt_err0_deg, r.tilt_sigma0_deg, r.yaw_err0_deg, r.att_valid_s,
			      r.converged_s, r.att5, r.yaw5, r.worst_att, r.worst_yaw, r.worst_vel);
		assert_true(r.aligned_s > 0 && r.aligned_s < max_aligned_s);
		assert_true(r.att_valid_s > 0 && r.att_valid_s < 5.0);
		assert_true(r.converged_s > 0 && r.converged_s < max_converged_s);
		assert_true(r.att5 < 2.0 && r.yaw5 < yaw_tol_deg);
		assert_true(r.worst_att < 2.0 && r.worst_yaw < yaw_tol_deg && r.worst_vel < 1.0);
		worst_err0 = fmax(worst_err0, r.tilt_err0_deg);
		worst_ratio = fmax(worst_ratio, r.tilt_err0_deg / r.tilt_sigma0_deg);
		worst_valid = fmax(worst_valid, r.att_valid_s);
		worst_conv = fmax(worst_conv, r.converged_s);
	}
	print_message("%s: worst tilt error at alignment %.2f deg (%.2f of its sigma); attitude valid within %.2f s, "
		      "converged within %.2f s\n", what, worst_err0, worst_ratio, worst_valid, worst_conv);
	/* the variance it starts with is honest */
	assert_true(worst_ratio < 2.0);
}

static void test_estim_aligns_in_a_turbulent_glide(void **state)
{
	struct glide_arg a = { .turn_rad_s = 0, .crab_rad = 8 * DEG, .course0_rad = 0.4, .turb = 1.0 };
	air_check("straight glide, crab 8 deg, turbulence", &a, false, 5.0, 1.5, 10.0);
}

static void test_estim_aligns_in_a_turning_turbulent_glide(void **state)
{
	struct glide_arg a = { .turn_rad_s = 15 * DEG, .crab_rad = 0, .course0_rad = -2.0, .turb = 1.0 };
	air_check("glide turning at 15 deg/s (28 deg of bank), turbulence", &a, false, 5.0, 1.5, 10.0);
	a.turn_rad_s = -15 * DEG;
	air_check("the same turning the other way", &a, false, 5.0, 1.5, 10.0);
}

static void test_estim_aligns_in_a_glide_without_a_compass_on_the_gps_course(void **state)
{
	struct glide_arg a = { .turn_rad_s = 0, .crab_rad = 0, .course0_rad = 2.5, .turb = 1.0 };
	/* it waits 3 s for a compass, then takes the heading from the GPS
	 * course (sigma 29 deg), which the turbulence's accelerations and the
	 * airspeed then narrow down to the 10 deg of convergence */
	air_check("straight glide without a compass, turbulence", &a, true, 10.0, 3.5, 30.0);
}

static void test_estim_tracks_a_turntable(void **state)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	synth_init(&s, traj_turntable, NULL, &c);
	/* align before it spins: the truth starts rotating at t = 0, so give
	 * alignment a still start by holding the first 2 s */
	struct rest_arg a = { 0, 0, 0 };
	s.fn = traj_rest;
	s.arg = &a;
	synth_run(&s, 2.0);
	s.fn = traj_turntable;
	s.arg = NULL;
	s.t = 0;
	s.t0_us += 2000000;
	double worst = 0;
	for (int i = 0; i < 30; i++) {
		synth_run(&s, 1.0);
		double ea, ey, ep, ev;
		synth_errors(&s, &ea, &ey, &ep, &ev);
		worst = fmax(worst, fmax(ea, ey));
	}
	print_message("turntable at 20 deg/s for 30 s: worst attitude/heading error %.3f deg\n", worst);
	assert_true(worst < 0.5);
}

static void test_estim_tracks_a_coordinated_turn(void **state)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	turn_table_build();
	synth_init(&s, traj_turn, NULL, &c);
	synth_run(&s, TURN_T0);
	double ea, ey, ep, ev, wa = 0, wy = 0, wp = 0, wv = 0;
	synth_errors(&s, &ea, &ey, &ep, &ev);
	print_message("straight at 20 m/s: attitude %.3f yaw %.3f deg, position %.3f m, velocity %.3f m/s\n", ea, ey,
		      ep, ev);
	for (int i = 0; i < 600; i++) {
		synth_run(&s, 0.1);
		synth_errors(&s, &ea, &ey, &ep, &ev);
		wa = fmax(wa, ea);
		wy = fmax(wy, ey);
		wp = fmax(wp, ep);
		wv = fmax(wv, ev);
	}
	print_message("60 s in a 30 deg coordinated turn: worst attitude %.3f yaw %.3f deg, position %.3f m, "
		      "velocity %.3f m/s\n", wa, wy, wp, wv);
	assert_true(wa < 0.3 && wy < 0.5 && wp < 0.5 && wv < 0.15);
	struct estim_status es;
	estim_get_status(&s.e, &es);
	assert_true(es.health & ESTIM_H_AIRSPEED_USED);
	assert_true(es.health & ESTIM_H_BETA_USED);
	assert_true(hypotf(es.wind_ne_m_s[0], es.wind_ne_m_s[1]) < 0.3f);

	/* a filter started in the turn aligns while moving: tilt from the
	 * specific force less the turn's acceleration, not from its mean
	 * (which would read the 30 deg bank as level) */
	estim_init(&s.e, &c);
	synth_run(&s, 1.2);
	assert_true(estim_health(&s.e) & ESTIM_H_ALIGNED);
	assert_true(estim_health(&s.e) & ESTIM_H_MOVING_ALIGN);
	synth_errors(&s, &ea, &ey, &ep, &ev);
	print_message("aligned in the turn: attitude %.3f yaw %.3f deg off\n", ea, ey);
	assert_true(ea < 1.0 && ey < 2.0);
}

/* The coordinated turn with the IMU at hz (and the slow sensors with every
 * IMU sample when all_fresh): when the filter aligned, and its worst errors
 * over 30 s of the turn. */
struct rate_run {
	double aligned_s;       /* from the first sample */
	double att, yaw, pos, vel;
	struct estim_status es;
};

static void turn_at_rate(double hz, bool all_fresh, float gps_delay_ms, struct rate_run *r)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	c.gps_delay_ms = gps_delay_ms;
	turn_table_build();
	synth_init(&s, traj_turn, NULL, &c);
	s.imu_us = (uint64_t)llround(1e6 / hz);
	s.all_fresh = all_fresh;
	s.gps_delay_s = D(gps_delay_ms) * 1e-3;
	memset(r, 0, sizeof(*r));
	while (!(estim_health(&s.e) & ESTIM_H_ALIGNED) && s.t < TURN_T0)
		synth_run(&s, 0.01);
	r->aligned_s = s.t;
	synth_run(&s, TURN_T0 - s.t);
	for (int i = 0; i < 300; i++) {
		double ea, ey, ep, ev;
		synth_run(&s, 0.1);
		synth_errors(&s, &ea, &ey, &ep, &ev);
		r->att = fmax(r->att, ea);
		r->yaw = fmax(r->yaw, ey);
		r->pos = fmax(r->pos, ep);
		r->vel = fmax(r->vel, ev);
	}
	estim_get_status(&s.e, &r->es);
}

/* The IMU at any rate from 50 to 2000 Hz: each sample integrated over the
 * true interval from the time stamps, so alignment takes its second whatever
 * the rate and the turn is flown as well at 50 Hz as at 2 kHz (an IMU slower
 * than the filter's 200 Hz makes a step of every sample). */
static void test_estim_integrates_any_imu_rate_by_its_time_stamps(void **state)
{
	static const double rates[] = { 50, 100, 200, 250, 400, 1000, 2000 };
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct rate_run r;
		turn_at_rate(rates[i], false, 150.0f, &r);
		print_message("IMU at %4.0f Hz: aligned after %.2f s; 30 s in the turn: worst attitude %.3f yaw %.3f deg, "
			      "position %.3f m, velocity %.3f m/s; %u filter steps, %u gaps\n", rates[i], r.aligned_s,
			      r.att, r.yaw, r.pos, r.vel, r.es.count.steps, r.es.count.imu_gaps);
		assert_true(r.aligned_s < 1.2);
		assert_true(r.att < 0.3 && r.yaw < 0.5 && r.pos < 0.5 && r.vel < 0.15);
		assert_int_equal(r.es.count.imu_gaps, 0);
		assert_true(r.es.health & ESTIM_H_CONVERGED);
	}
}

/* A simulator that marks every field fresh in every message: baro, compass
 * and airspeed at the IMU's rate are averaged down to 50, 100 and 50 Hz, so
 * none overflows its buffer behind the delayed horizon and all are fused --
 * also behind the longest horizon, 300 ms. */
static void test_estim_takes_slow_sensors_at_their_own_rate_when_every_sample_is_fresh(void **state)
{
	static const struct { double hz; float delay_ms; } runs[] = { { 400, 150 }, { 1000, 150 }, { 1000, 300 } };
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct rate_run r;
		turn_at_rate(runs[i].hz, true, runs[i].delay_ms, &r);
		const struct estim_innov *in = r.es.innov;
		double t = TURN_T0 + 30.0 - r.aligned_s;
		print_message("every field fresh at %4.0f Hz, GPS delay %3.0f ms: fused per second: baro %.1f, compass %.1f, "
			      "airspeed %.1f; %u averaged in, %u dropped; worst attitude %.3f yaw %.3f deg, position %.3f m\n",
			      runs[i].hz, D(runs[i].delay_ms), in[ESTIM_BARO].fused / t, in[ESTIM_MAG].fused / t,
			      in[ESTIM_TAS].fused / t, r.es.count.obs_averaged, r.es.count.obs_dropped, r.att, r.yaw,
			      r.pos);
		assert_int_equal(r.es.count.obs_dropped, 0);
		assert_true(in[ESTIM_BARO].fused / t > 45 && in[ESTIM_BARO].fused / t < 51);
		/* the compass at 100 Hz, or what 28 entries hold of the horizon (300 ms: 93 Hz) */
		assert_true(in[ESTIM_MAG].fused / t > 85 && in[ESTIM_MAG].fused / t < 101);
		assert_true(in[ESTIM_TAS].fused / t > 45 && in[ESTIM_TAS].fused / t < 51);
		uint32_t used = ESTIM_H_BARO_USED | ESTIM_H_MAG_USED | ESTIM_H_AIRSPEED_USED;
		assert_int_equal(r.es.health & used, used);
		assert_true(r.att < 0.3 && r.yaw < 0.5 && r.pos < 0.5 && r.vel < 0.15);
	}
}

/* 2 s at rest, then 5 s on the turntable (20 deg/s): an estimator running in
 * every state, for the tests of its clock. gps_after_imu as struct synth says. */
static void turntable_start(struct synth *s, bool gps_after_imu)
{
	struct estim_config c;
	cfg_default(&c);
	synth_init(s, traj_turntable, NULL, &c);
	s->gps_after_imu = gps_after_imu;
	static const struct rest_arg a = { 0, 0, 0 };
	s->fn = traj_rest;
	s->arg = &a;
	synth_run(s, 2.0);
	s->fn = traj_turntable;
	s->arg = NULL;
	s->t = 0;
	s->t0_us += 2000000;
	synth_run(s, 5.0);
}

/* A gap: the stamps jump 60 ms while the source's own time moves one
 * interval. The sample is held for one interval, not 60 ms, and the gap
 * counted. Then a pause the source says it made (a real-time simulator's
 * 1.5 s stall, its clock re-anchored): none of its time passed, so nothing
 * is older for it: GPS stays in use and the position valid, without a reset,
 * and it is no gap. Without the word, the same jump loses GPS for a moment. */
static void test_estim_counts_a_gap_and_holds_the_sample_one_interval(void **state)
{
	static struct synth s;
	turntable_start(&s, false);
	double ea0, ey0, ep, ev;
	synth_errors(&s, &ea0, &ey0, &ep, &ev);
	s.t0_us += 60000;
	synth_run(&s, 0.05);
	double ea, ey;
	synth_errors(&s, &ea, &ey, &ep, &ev);
	struct estim_status es;
	estim_get_status(&s.e, &es);
	print_message("a 60 ms jump of the stamps at 20 deg/s: %u gap; heading error %.3f deg just after (%.3f before)\n",
		      es.count.imu_gaps, ey, ey0);
	assert_int_equal(es.count.imu_gaps, 1);
	assert_true(ey < ey0 + 0.1);
	uint32_t resets = es.count.pos_resets + es.count.vel_resets + es.count.yaw_resets;
	unsigned int lapses[2] = { 0, 0 };
	for (int said = 1; said >= 0; said--) {
		/* just after a GPS fix, so that none is due when the horizon crosses the jump */
		synth_run(&s, 0.2 - fmod(s.t, 0.2) + 0.002);
		s.t0_us += 1500000;
		if (said)
			estim_source_paused(&s.e, 1500000);
		for (int k = 0; k < 100; k++) {
			synth_run(&s, 0.01);
			struct vehicle_state vs;
			estim_get_state(&s.e, &vs);
			if (!(estim_health(&s.e) & ESTIM_H_GPS_USED) || !(vs.valid & VEHICLE_POSITION_VALID))
				lapses[said]++;
		}
		synth_errors(&s, &ea, &ey, &ep, &ev);
		estim_get_status(&s.e, &es);
		print_message("a 1.5 s jump%s: %u gaps in all; %u of 100 checks over the next second without GPS in "
			      "use or a valid position; heading error %.3f deg, position %.3f m after\n",
			      said ? " the source says was a pause" : ", unexplained", es.count.imu_gaps, lapses[said],
			      ey, ep);
		if (said) {
			assert_int_equal(es.count.imu_gaps, 1);
			assert_int_equal(lapses[1], 0);
			assert_int_equal(es.count.pos_resets + es.count.vel_resets + es.count.yaw_resets, resets);
			assert_true(ey < ey0 + 0.1 && ep < 0.5);
		}
	}
	assert_int_equal(es.count.imu_gaps, 2);
	assert_true(lapses[0] > 0);
}

/* The same said pause, the fix before it read only after the first IMU sample
 * past it (the daemon's main loop drains the IMU first, the latest fix after;
 * hil_rc_stall under AddressSanitizer on a loaded host met this): the fix is
 * from the time before the shift and moves on with it, and no fix seems the
 * pause's length older than the one before. Before, GPS was lost for a fix,
 * the position with it, and a plane in AUTO went to CIRCLE. */
static void test_estim_moves_a_fix_from_before_a_pause_on_with_it(void **state)
{
	(void)state;
	static struct synth s;
	turntable_start(&s, true);
	/* up to the IMU sample that makes a fix, held for the next one */
	synth_run(&s, 0.2 - fmod(s.t, 0.2));
	assert_true(s.gps_held);
	struct estim_status es0, es;
	estim_get_status(&s.e, &es0);
	s.t0_us += 1500000;
	estim_source_paused(&s.e, 1500000);
	unsigned int lapses = 0;
	for (int k = 0; k < 100; k++) {
		synth_run(&s, 0.01);
		struct vehicle_state vs;
		estim_get_state(&s.e, &vs);
		if (!(estim_health(&s.e) & ESTIM_H_GPS_USED) || !(vs.valid & VEHICLE_POSITION_VALID))
			lapses++;
	}
	double ea, ey, ep, ev;
	synth_errors(&s, &ea, &ey, &ep, &ev);
	estim_get_status(&s.e, &es);
	print_message("a 1.5 s pause with the fix before it read after it: %u of 100 checks without GPS in "
		      "use or a valid position; %u position resets; position error %.3f m after\n", lapses,
		      es.count.pos_resets - es0.count.pos_resets, ep);
	assert_int_equal(lapses, 0);
	assert_int_equal(es.count.pos_resets, es0.count.pos_resets);
	assert_true(ep < 0.5);
}

/* The airspeed sensor's own reading is published beside the estimate's
 * (ground velocity less the wind): a gust from behind shows in it with the
 * next sample, while the estimate, its wind a slow state, still says the
 * airspeed before. Gone quiet for ESTIM_TAS_MEAS_AGE_S, or not in use, it is
 * NAN. */
static void test_estim_publishes_the_airspeed_sensors_reading(void **state)
{
	(void)state;
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	struct line_arg la = { 15 };
	synth_init(&s, traj_line, &la, &c);
	synth_run(&s, 20.0);
	struct vehicle_state vs;
	estim_get_state(&s.e, &vs);
	assert_true(fabsf(vs.airspeed_meas_m_s - 15.0f) < 0.3f);
	assert_true(fabsf(vs.airspeed_m_s - 15.0f) < 0.5f);
	s.airspeed_offset = -4.0;
	synth_run(&s, 0.1);
	estim_get_state(&s.e, &vs);
	print_message("4 m/s gust from behind, 0.1 s on: sensor %.2f m/s, estimate %.2f m/s\n",
		      (double)vs.airspeed_meas_m_s, (double)vs.airspeed_m_s);
	assert_true(fabsf(vs.airspeed_meas_m_s - 11.0f) < 0.3f);
	assert_true(vs.airspeed_m_s > 14.0f);
	s.no_airspeed = true;
	synth_run(&s, (double)ESTIM_TAS_MEAS_AGE_S + 0.05);
	estim_get_state(&s.e, &vs);
	assert_true(isnan(vs.airspeed_meas_m_s));

	c.use_airspeed = false;
	synth_init(&s, traj_line, &la, &c);
	synth_run(&s, 5.0);
	estim_get_state(&s.e, &vs);
	assert_true(isnan(vs.airspeed_meas_m_s));
}

/* GPS from 1 to 10 Hz behind up to ArduPilot's largest GPS_DELAY_MS: used
 * without a break (at 1 Hz a fix is a second old before the next: not lost),
 * the position where the vehicle is now. */
static void test_estim_uses_gps_from_1_to_10_hz_at_its_delay(void **state)
{
	static const struct { uint64_t period_us; double delay_s; } runs[] = {
		{ 1000000, 0.25 }, { 200000, 0.25 }, { 100000, 0.25 }, { 100000, 0.0 },
	};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		static struct synth s;
		struct estim_config c;
		cfg_default(&c);
		c.gps_delay_ms = (float)(runs[i].delay_s * 1000.0);
		c.use_airspeed = false;
		c.use_beta = false;
		struct line_arg la = { 15 };
		synth_init(&s, traj_line, &la, &c);
		s.gps_us = runs[i].period_us;
		s.gps_delay_s = runs[i].delay_s;
		synth_run(&s, 10.0);
		unsigned int breaks = 0;
		double worst = 0;
		for (int k = 0; k < 200; k++) {
			synth_run(&s, 0.05);
			if (!(estim_health(&s.e) & ESTIM_H_GPS_USED) || !estim_is_converged(&s.e))
				breaks++;
			double ea, ey, ep, ev;
			synth_errors(&s, &ea, &ey, &ep, &ev);
			worst = fmax(worst, ep);
		}
		print_message("GPS at %4.1f Hz, %3.0f ms late: %u of 200 checks without it in use; worst position error %.3f m\n",
			      1e6 / (double)runs[i].period_us, runs[i].delay_s * 1000.0, breaks, worst);
		assert_int_equal(breaks, 0);
		assert_true(worst < 0.5);
	}
}

/* The delayed horizon: with the right GPS delay the published position is
 * where the vehicle is now; treating the 150 ms old fix as current would
 * leave it 2.25 m behind at 15 m/s. */
static double line_pos_error(float gps_delay_ms)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	c.gps_delay_ms = gps_delay_ms;
	c.use_airspeed = false;
	c.use_beta = false;
	struct line_arg la = { 15 };
	synth_init(&s, traj_line, &la, &c);
	synth_run(&s, 20.0);
	double ea, ey, ep, ev;
	synth_errors(&s, &ea, &ey, &ep, &ev);
	return ep;
}

static void test_estim_fuses_gps_at_its_measurement_time(void **state)
{
	double right = line_pos_error(150.0f), wrong = line_pos_error(0.0f);
	print_message("15 m/s, GPS 150 ms late: position error %.3f m with the delay, %.3f m without\n", right, wrong);
	assert_true(right < 0.3);
	assert_true(wrong > 1.5);
}

static void test_estim_gps_fusion_follows_the_kalman_gain_and_gates_jumps(void **state)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	struct rest_arg a = { 0, 0, 0 };
	synth_init(&s, traj_rest, &a, &c);
	synth_run(&s, 30.0);
	struct estim_status es;
	estim_get_status(&s.e, &es);
	assert_true(es.innov[ESTIM_GPS_POS].fused > 100);
	float pvar = es.var_diag[ESTIM_S_POS];
	float n0 = s.e.x.pos[0];
	/* one fix 2 m north: innovation 2 m, variance P + R, gain P / (P + R) */
	s.gps_offset_n = 2.0;
	synth_run(&s, 0.2);   /* one fix, 150 ms old when it arrives */
	s.gps_offset_n = 0.0;
	synth_run(&s, 0.17);  /* fused on the delayed horizon, before the next */
	estim_get_status(&s.e, &es);
	float r = 0.8f * 0.8f;  /* the fix's h_acc (above the 0.5 m floor) */
	float y = es.innov[ESTIM_GPS_POS].innov[0];
	float S = es.innov[ESTIM_GPS_POS].var[0];
	print_message("2 m fix: innovation %.3f m, variance %.4f (P %.4f + R %.4f), test ratio %.3f\n", D(y), D(S),
		      D(pvar), D(r), D(es.innov[ESTIM_GPS_POS].test_ratio));
	assert_true(fabsf(y - 2.0f) < 0.05f);
	assert_true(fabsf(S - (pvar + r)) < 0.05f * S);
	assert_true(fabsf(es.innov[ESTIM_GPS_POS].test_ratio - y * y / (25.0f * S)) < 1e-3f);
	float moved = s.e.x.pos[0] - n0;
	assert_true(moved > 0.5f * y * pvar / S && moved < 1.5f * y * pvar / S + 0.05f);

	/* a 100 m jump: rejected, counted, flagged; the state does not move */
	synth_run(&s, 5.0);
	estim_get_status(&s.e, &es);
	uint32_t rej = es.innov[ESTIM_GPS_POS].rejected;
	s.gps_offset_n = 100.0;
	synth_run(&s, 1.0);
	estim_get_status(&s.e, &es);
	assert_true(es.innov[ESTIM_GPS_POS].rejected >= rej + 4);
	assert_true(es.innov[ESTIM_GPS_POS].test_ratio > 1.0f);
	assert_true(es.ekf_flags & ESTIM_EKF_GPS_GLITCHING);
	assert_true(fabsf(s.e.x.pos[0]) < 0.5f);
}

static void test_estim_baro_rebases_when_it_disagrees_with_gps_height(void **state)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	struct rest_arg a = { 0, 0, 0 };
	synth_init(&s, traj_rest, &a, &c);
	synth_run(&s, 20.0);
	struct estim_status es;
	estim_get_status(&s.e, &es);
	assert_int_equal(es.count.baro_resets, 0);
	assert_true(es.health & ESTIM_H_BARO_USED);
	/* the baro jumps by 25 m (a pressure step: a door, a sealed case):
	 * rejected, then after hgt_disagree_reset_s its bias is rebased and
	 * the height stays with GPS */
	s.no_baro = true;
	for (int k = 0; k < 12000; k++) {
		s.t += 0.001;
		long ms = lround(s.t * 1000);
		uint64_t t_us = s.t0_us + (uint64_t)ms * 1000;
		struct truth tr;
		traj_rest(s.t, &a, &tr);
		struct imu_sample is = { .t_us = t_us };
		for (int i = 0; i < 3; i++) {
			is.gyro_rad_s[i] = (float)(tr.w_body[i] + 1e-5 * dither(&s.rng));
			is.accel_m_s2[i] = (float)(tr.f_body[i] + 1e-4 * dither(&s.rng));
		}
		estim_push_imu(&s.e, &is);
		if (ms % 20 == 0) {
			float p = (float)(101325.0 * pow(1.0 - (ALT0 + 25.0) / 44330.77, 1.0 / 0.190263));
			struct baro_sample b = { t_us, p + 0.05f * (float)((ms / 20) % 3), 15.0f };
			estim_push_baro(&s.e, &b);
		}
		if (ms % 200 == 0) {
			struct gps_fix f;
			memset(&f, 0, sizeof(f));
			f.t_us = t_us;
			f.fix = GPS_FIX_3D;
			f.num_sv = 12;
			f.lat_deg = LAT0;
			f.lon_deg = LON0;
			f.alt_msl_m = (float)ALT0;
			f.vel_down_valid = true;
			f.h_acc_m = 0.8f;
			f.v_acc_m = 1.2f;
			estim_push_gps(&s.e, &f);
		}
	}
	estim_get_status(&s.e, &es);
	struct vehicle_state vs;
	estim_get_state(&s.e, &vs);
	print_message("baro 25 m off: %u rejected, %u rebase, baro bias %.1f m, height error %.2f m\n",
		      es.innov[ESTIM_BARO].rejected, es.count.baro_resets, D(es.baro_bias_m), D(vs.alt_msl_m) - ALT0);
	assert_true(es.innov[ESTIM_BARO].rejected > 100);
	assert_int_equal(es.count.baro_resets, 1);
	assert_true(es.health & ESTIM_H_HGT_DISAGREE);
	assert_true(fabsf(es.baro_bias_m - 25.0f) < 3.0f);
	assert_true(fabs(D(vs.alt_msl_m) - ALT0) < 3.0);
}

/* A stuck barometer in a descent (1.4 m/s): its one pressure refused after 2 s, the baro
 * faulted a second later and the GPS's height fused in its place; moving again, it
 * is fused again (rebased to the GPS's height where it disagrees). */
static void test_estim_stuck_baro_is_refused_and_gps_height_takes_its_place(void **state)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	c.use_gps_hgt = false;          /* the baro is the height source, as in fulmard */
	struct glide_arg a = { .turn_rad_s = 0, .crab_rad = 0, .course0_rad = 0.3, .turb = 0.5 };
	synth_init(&s, traj_glide, &a, &c);
	synth_run(&s, 60.0);
	struct estim_status es;
	estim_get_status(&s.e, &es);
	assert_true(es.health & ESTIM_H_BARO_USED);
	assert_int_equal(es.innov[ESTIM_GPS_HGT].fused, 0);
	struct truth tr;
	traj_glide(s.t, &a, &tr);
	s.baro_hold_pa = (float)(101325.0 * pow(1.0 - (ALT0 - tr.pos[2]) / 44330.77, 1.0 / 0.190263));
	double worst = 0.0;
	for (int k = 0; k < 300; k++) {     /* 30 s stuck: 42 m of descent */
		synth_run(&s, 0.1);
		struct vehicle_state vs;
		estim_get_state(&s.e, &vs);
		traj_glide(s.t, &a, &tr);
		worst = fmax(worst, fabs(D(vs.alt_msl_m) - (ALT0 - tr.pos[2])));
	}
	estim_get_status(&s.e, &es);
	assert_true(es.count.baro_frozen > 1000);
	assert_true(es.health & ESTIM_H_BARO_FAULT);
	assert_false(es.health & ESTIM_H_BARO_USED);
	assert_true(es.innov[ESTIM_GPS_HGT].fused > 100);
	s.baro_hold_pa = 0.0f;
	synth_run(&s, 10.0);
	struct vehicle_state vs;
	estim_get_state(&s.e, &vs);
	traj_glide(s.t, &a, &tr);
	double after = fabs(D(vs.alt_msl_m) - (ALT0 - tr.pos[2]));
	estim_get_status(&s.e, &es);
	print_message("baro stuck 30 s in a 1.4 m/s descent: %u samples refused, %u GPS heights "
		      "fused, height error at most %.2f m; moving again 10 s: %.2f m, baro resets %u\n",
		      es.count.baro_frozen, es.innov[ESTIM_GPS_HGT].fused, worst, after,
		      es.count.baro_resets);
	assert_true(worst < 5.0);
	assert_true(after < 3.0);
	assert_true(es.health & ESTIM_H_BARO_USED);
	assert_false(es.health & ESTIM_H_BARO_FAULT);
}

static void test_estim_covariance_stays_symmetric_bounded_and_finite(void **state)
{
	/* a long run with no aiding but the compass: variances grow to their bounds */
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	struct rest_arg a = { 0.1, 0.05, 1.0 };
	synth_init(&s, traj_rest, &a, &c);
	synth_run(&s, 5.0);
	s.no_gps = true;
	s.no_baro = true;
	synth_run(&s, 120.0);
	for (int i = 0; i < ESTIM_NSTATES; i++) {
		assert_true(isfinite(s.e.P[i][i]) && s.e.P[i][i] >= 0.0f);
		for (int j = 0; j < ESTIM_NSTATES; j++) {
			assert_true(isfinite(s.e.P[i][j]));
			assert_true(s.e.P[i][j] == s.e.P[j][i]);
			/* Cauchy-Schwarz, with float slack */
			if (!(s.e.P[i][j] * s.e.P[i][j] <= s.e.P[i][i] * s.e.P[j][j] * 1.01f + 1e-12f))
				print_message("P[%d][%d] = %g, diagonals %g %g\n", i, j, D(s.e.P[i][j]), D(s.e.P[i][i]), D(s.e.P[j][j]));
			assert_true(s.e.P[i][j] * s.e.P[i][j] <= s.e.P[i][i] * s.e.P[j][j] * 1.01f + 1e-12f);
		}
	}
	struct estim_status es;
	estim_get_status(&s.e, &es);
	assert_true(es.health & ESTIM_H_DEAD_RECKONING);
	assert_true(es.health & ESTIM_H_BARO_FAULT);
	assert_false(es.ekf_flags & ESTIM_EKF_POS_HORIZ_ABS);
	assert_false(es.ekf_flags & ESTIM_EKF_VELOCITY_VERT);
	assert_int_equal(es.count.numeric_faults, 0);
}

/* ---- the covariance's structured prediction ------------------------------- */

#define NS ESTIM_NSTATES

static double urand(unsigned int *seed, double lo, double hi)
{
	*seed = *seed * 1103515245u + 12345u;
	return lo + (hi - lo) * (double)((*seed >> 8) & 0xffffff) / (double)0x1000000;
}

/* A random covariance: L L' + a diagonal, each state at its own scale (radians
 * to hundreds of metres), exactly symmetric in float. */
static void random_cov(unsigned int *seed, float P[NS][NS])
{
	static const double scale[NS] = { 0.05, 0.05, 0.2, 3, 3, 1, 50, 50, 20, 1e-3, 1e-3, 1e-3, 0.1, 0.1, 0.1,
					  0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 5, 5, 3, 0.01, 0.01, 0.01 };
	double L[NS][NS], Pd[NS][NS];
	for (int i = 0; i < NS; i++)
		for (int j = 0; j < NS; j++)
			L[i][j] = urand(seed, -1, 1) * scale[i];
	for (int i = 0; i < NS; i++)
		for (int j = i; j < NS; j++) {
			double a = i == j ? 0.1 * scale[i] * scale[i] : 0;
			for (int k = 0; k < NS; k++)
				a += L[i][k] * L[j][k] / NS;
			Pd[i][j] = Pd[j][i] = a;
		}
	for (int i = 0; i < NS; i++)
		for (int j = 0; j < NS; j++)
			P[i][j] = (float)Pd[i][j];
}

/* The dense update estim.c made before estim_cov_transition: row operations
 * into F P, column operations over every row, then the two triangles
 * averaged. */
static void dense_transition(float P[NS][NS], float R[3][3], const float dv[3], const float dang[3], float dt)
{
	static const int blk_row[5] = { ESTIM_S_ATT, ESTIM_S_VEL, ESTIM_S_VEL, ESTIM_S_POS, ESTIM_S_ATT };
	static const int blk_col[5] = { ESTIM_S_GYRO_BIAS, ESTIM_S_ATT, ESTIM_S_ACC_BIAS, ESTIM_S_VEL,
					ESTIM_S_GYRO_SCALE };
	float B[5][3][3];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			B[0][i][j] = -R[i][j] * dt;
			B[2][i][j] = -R[i][j] * dt;
			B[3][i][j] = i == j ? dt : 0.0f;
			B[4][i][j] = -R[i][j] * dang[j];
		}
	float sk[3][3] = { { 0.0f, dv[2], -dv[1] }, { -dv[2], 0.0f, dv[0] }, { dv[1], -dv[0], 0.0f } };
	memcpy(B[1], sk, sizeof(sk));
	static float A[NS][NS];
	memcpy(A, P, sizeof(A));
	for (int b = 0; b < 5; b++)
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++) {
				float f = B[b][i][k];
				if (f == 0.0f)
					continue;
				for (int j = 0; j < NS; j++)
					A[blk_row[b] + i][j] += f * P[blk_col[b] + k][j];
			}
	memcpy(P, A, sizeof(A));
	for (int b = 0; b < 5; b++)
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++) {
				float f = B[b][i][k];
				if (f == 0.0f)
					continue;
				for (int j = 0; j < NS; j++)
					P[j][blk_row[b] + i] += f * A[j][blk_col[b] + k];
			}
	for (int i = 0; i < NS; i++)
		for (int j = i + 1; j < NS; j++)
			P[i][j] = P[j][i] = 0.5f * (P[i][j] + P[j][i]);
}

static void test_estim_structured_covariance_prediction_equals_the_dense_product(void **state)
{
	/* Random attitudes, velocity changes, delta angles, step lengths and
	 * covariances: the structured update gives the very floats of the dense
	 * one (the same operations in the same order; c_std=c11 contracts no
	 * multiply-add), and F P F' of the exact F to float rounding. */
	static float P[NS][NS], Pd[NS][NS], P0[NS][NS];
	unsigned int seed = 19;
	double worst = 0;
	for (int run = 0; run < 200; run++) {
		random_cov(&seed, P0);
		float q[4] = { (float)urand(&seed, -1, 1), (float)urand(&seed, -1, 1), (float)urand(&seed, -1, 1),
			       (float)urand(&seed, -1, 1) };
		em_quat_normalize(q);
		float R[3][3];
		em_quat_to_dcm(q, R);
		float dt = (float)urand(&seed, 0.0025, 0.02);
		float dv[3], dang[3];
		for (int i = 0; i < 3; i++) {
			dv[i] = (float)urand(&seed, -0.5, 0.5);
			dang[i] = (float)urand(&seed, -0.05, 0.05);
		}
		if (run % 4 == 0)
			dv[run % 3] = 0.0f; /* the dense update skips zero terms */
		memcpy(P, P0, sizeof(P));
		memcpy(Pd, P0, sizeof(Pd));
		estim_cov_transition(P, R, dv, dang, dt);
		dense_transition(Pd, R, dv, dang, dt);
		assert_memory_equal(P, Pd, sizeof(P));

		/* F P F' in double, F built whole */
		static double F[NS][NS], FP[NS][NS];
		memset(F, 0, sizeof(F));
		for (int i = 0; i < NS; i++)
			F[i][i] = 1;
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				F[ESTIM_S_ATT + i][ESTIM_S_GYRO_BIAS + k] = -D(R[i][k]) * D(dt);
				F[ESTIM_S_ATT + i][ESTIM_S_GYRO_SCALE + k] = -D(R[i][k]) * D(dang[k]);
				F[ESTIM_S_VEL + i][ESTIM_S_ACC_BIAS + k] = -D(R[i][k]) * D(dt);
			}
			F[ESTIM_S_POS + i][ESTIM_S_VEL + i] = D(dt);
		}
		/* -[dv x] */
		F[ESTIM_S_VEL + 0][ESTIM_S_ATT + 1] = D(dv[2]);
		F[ESTIM_S_VEL + 0][ESTIM_S_ATT + 2] = -D(dv[1]);
		F[ESTIM_S_VEL + 1][ESTIM_S_ATT + 0] = -D(dv[2]);
		F[ESTIM_S_VEL + 1][ESTIM_S_ATT + 2] = D(dv[0]);
		F[ESTIM_S_VEL + 2][ESTIM_S_ATT + 0] = D(dv[1]);
		F[ESTIM_S_VEL + 2][ESTIM_S_ATT + 1] = -D(dv[0]);
		for (int i = 0; i < NS; i++)
			for (int j = 0; j < NS; j++) {
				double a = 0;
				for (int k = 0; k < NS; k++)
					a += F[i][k] * D(P0[k][j]);
				FP[i][j] = a;
			}
		for (int i = 0; i < NS; i++)
			for (int j = 0; j < NS; j++) {
				double a = 0;
				for (int k = 0; k < NS; k++)
					a += FP[i][k] * F[j][k];
				/* error relative to the scale Cauchy-Schwarz allows the entry */
				double err = fabs(D(P[i][j]) - a) / sqrt(D(P[i][i]) * D(P[j][j]));
				if (err > worst)
					worst = err;
				assert_true(P[i][j] == P[j][i]);
				if (i >= ESTIM_COV_NAV && j >= ESTIM_COV_NAV)
					assert_true(P[i][j] == P0[i][j]);
			}
	}
	print_message("structured F P F': the dense update's floats; from the exact product at most %.2g "
		      "of sqrt(Pii Pjj)\n", worst);
	assert_true(worst < 1e-5);
}

/* At rest 10 s, 3 m/s^2 north for 3 s, 9 m/s for 5 s, then stopped dead in
 * 35 ms (26 g: a nose into the ground), at rest after. */
static void traj_impact(double t, const void *arg, struct truth *o)
{
	(void)arg;
	const double t0 = 10.0, a = 3.0, t1 = 13.0, t2 = 18.0, v = 9.0, T = 0.035;
	memset(o, 0, sizeof(*o));
	set_euler(o, 0, 0, 0);
	double acc[3] = { 0, 0, 0 };
	if (t < t0) {
	} else if (t < t1) {
		acc[0] = a;
		o->vel[0] = a * (t - t0);
		o->pos[0] = 0.5 * a * (t - t0) * (t - t0);
	} else if (t < t2) {
		o->vel[0] = v;
		o->pos[0] = 0.5 * a * 9.0 + v * (t - t1);
	} else if (t < t2 + T) {
		acc[0] = -v / T;
		o->vel[0] = v - v / T * (t - t2);
		o->pos[0] = 0.5 * a * 9.0 + v * (t2 - t1) + v * (t - t2) - 0.5 * v / T * (t - t2) * (t - t2);
	} else {
		o->pos[0] = 0.5 * a * 9.0 + v * (t2 - t1) + 0.5 * v * T;
	}
	specific_force(o, acc);
}

static void test_estim_believes_the_gps_after_the_accelerometer_clips(void **state)
{
	/* The +-16 g accelerometer clips in the impact: it integrates 157 of the
	 * 257 m/s^2, some 3.5 m/s of speed it never saw. The estimator takes the
	 * clipped time as velocity uncertainty and follows the GPS's stop within
	 * a second, instead of gating it out for the seconds it takes to time out
	 * (crash detection, a landing's disarm, wait on that speed). */
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	synth_init(&s, traj_impact, NULL, &c);
	s.accel_range = 16.0 * G;
	double att, yaw, pos, vel;
	synth_run(&s, 18.0);
	synth_errors(&s, &att, &yaw, &pos, &vel);
	assert_true(vel < 0.3);
	synth_run(&s, 1.2);
	synth_errors(&s, &att, &yaw, &pos, &vel);
	struct estim_status es;
	estim_get_status(&s.e, &es);
	print_message("after the impact: %u samples clipped, velocity error %.2f m/s 1.2 s on\n",
		      es.count.accel_clipped, vel);
	assert_true(es.count.accel_clipped >= 30);
	assert_true(vel < 1.0);
	synth_run(&s, 3.0);
	synth_errors(&s, &att, &yaw, &pos, &vel);
	assert_true(vel < 0.3);
	assert_true(att < 2.0);
}

/*
 * The filter steps on the main loop's grid: at the first sample at or past each
 * multiple of the period, the rule src/daemon/sensors.c paces the main loop by,
 * whatever the IMU's rate and wherever its samples start. Each loop then sees
 * one step over its own interval; on a grid from the first sample, 1 kHz
 * samples from t = 1 ms stepped at 3.5, 6, 8.5 ms... against loops at 3, 5, 8
 * ms, and the state moved by two steps in every other loop.
 */
static void test_estim_steps_on_the_main_loop_grid(void **state)
{
	static struct estim e;
	static const uint64_t imu_us[] = { 1000, 2000, 4000, 5000, 10000 };
	const uint64_t period_us = 2500;
	for (unsigned int k = 0; k < sizeof(imu_us) / sizeof(imu_us[0]); k++) {
		struct estim_config c;
		cfg_default(&c);
		c.filter_rate_hz = 400.0f;
		estim_init(&e, &c);
		unsigned int steps = 0, want = 0;
		for (uint64_t t = imu_us[k]; t <= 2000000; t += imu_us[k]) {
			/* never the same twice: a stuck sensor is refused */
			struct imu_sample is = { .t_us = t };
			is.accel_m_s2[2] = -9.8f + 1e-4f * (float)(t % 7000) / 7000.0f;
			int rc = estim_push_imu(&e, &is);
			assert_true(rc >= 0);
			bool due = t != imu_us[k] && t / period_us != (t - imu_us[k]) / period_us;
			assert_int_equal(rc, due ? 1 : 0);
			steps += rc == 1;
			want += due;
		}
		assert_int_equal(steps, want);
	}
}

static void test_estim_rejects_bad_samples_and_counts_them(void **state)
{
	static struct estim e;
	struct estim_config c;
	cfg_default(&c);
	estim_init(&e, &c);
	struct imu_sample s = { .t_us = 1000 };
	s.accel_m_s2[2] = -9.8f;
	assert_int_equal(estim_push_imu(&e, &s), 0);
	s.t_us = 2000;
	s.gyro_rad_s[1] = NAN;
	assert_int_equal(estim_push_imu(&e, &s), -EINVAL);
	s.gyro_rad_s[1] = 100.0f;  /* 5700 deg/s: no gyro we fly measures this */
	assert_int_equal(estim_push_imu(&e, &s), -EINVAL);
	s.gyro_rad_s[1] = 0;
	s.t_us = 500;              /* time going backwards */
	assert_int_equal(estim_push_imu(&e, &s), -EINVAL);
	float d[3] = { 0, 0, 0 }, v[3] = { 0, 0, INFINITY };
	assert_int_equal(estim_predict(&e, d, v, 0.005f, 3000), -EINVAL);
	v[2] = 0;
	assert_int_equal(estim_predict(&e, d, v, -1.0f, 3000), -EINVAL);
	struct estim_status es;
	estim_get_status(&e, &es);
	assert_int_equal(es.count.imu_invalid, 3);
	struct baro_sample b = { 1000, 0.0f, 20.0f };
	assert_int_equal(estim_push_baro(&e, &b), -EINVAL);
	b.pressure_pa = 200000.0f;
	assert_int_equal(estim_push_baro(&e, &b), -EINVAL);
	b.pressure_pa = 95000.0f;
	assert_int_equal(estim_push_baro(&e, &b), -EAGAIN);  /* fine, not running yet */
	struct gps_fix g;
	memset(&g, 0, sizeof(g));
	g.fix = GPS_FIX_2D;
	g.num_sv = 12;
	g.lat_deg = LAT0;
	g.lon_deg = LON0;
	assert_int_equal(estim_push_gps(&e, &g), -EINVAL);
	g.fix = GPS_FIX_3D;
	g.lat_deg = 91.0;
	assert_int_equal(estim_push_gps(&e, &g), -EINVAL);
	g.lat_deg = 0;
	g.lon_deg = 0;  /* null island: an uninitialised receiver */
	assert_int_equal(estim_push_gps(&e, &g), -EINVAL);
	g.lat_deg = LAT0;
	g.lon_deg = LON0;
	g.h_acc_m = 50.0f;
	assert_int_equal(estim_push_gps(&e, &g), -EINVAL);
	g.h_acc_m = NAN;            /* NMEA: unknown accuracy is allowed */
	assert_int_equal(estim_push_gps(&e, &g), -EAGAIN);
	struct mag_sample m = { .t_us = 1000, .field_ut = { 500.0f, 0, 0 } };
	assert_int_equal(estim_push_mag(&e, &m), -EINVAL);
	struct airspeed_sample as = { 1000, INFINITY, 20.0f };
	assert_int_equal(estim_push_airspeed(&e, &as), -EINVAL);
	estim_get_status(&e, &es);
	assert_int_equal(es.count.baro_invalid, 2);
	assert_int_equal(es.count.gps_invalid, 4);
	assert_int_equal(es.count.mag_invalid, 1);
	assert_int_equal(es.count.airspeed_invalid, 1);
	assert_true(es.health & ESTIM_H_IMU_BAD);
}

static void test_estim_wgs84_conversion_matches_the_ellipsoid(void **state)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	struct rest_arg a = { 0, 0, 0 };
	synth_init(&s, traj_rest, &a, &c);
	float ned[3] = { 0, 0, 0 };
	double lat, lon;
	float alt;
	assert_int_equal(estim_ned_to_wgs84(&s.e, ned, &lat, &lon, &alt), -ENODATA);
	synth_run(&s, 3.0);
	assert_int_equal(estim_ned_to_wgs84(&s.e, ned, &lat, &lon, &alt), 0);
	/* against the simulator's exact ECEF conversion, 2 km out */
	struct sim_lla o = { s.e.origin_lat_deg, s.e.origin_lon_deg, s.e.origin_alt_m };
	double worst = 0;
	for (int k = 0; k < 8; k++) {
		double b = k * M_PI / 4;
		float p[3] = { (float)(2000 * cos(b)), (float)(2000 * sin(b)), -50.0f };
		assert_int_equal(estim_ned_to_wgs84(&s.e, p, &lat, &lon, &alt), 0);
		struct sim_lla q = { lat, lon, D(alt) };
		struct v3 exact = sim_lla_to_ned(&o, &q);
		worst = fmax(worst, hypot(exact.x - D(p[0]), exact.y - D(p[1])));
		float back[3];
		assert_int_equal(estim_wgs84_to_ned(&s.e, lat, lon, alt, back), 0);
		for (int i = 0; i < 3; i++)
			assert_true(fabsf(back[i] - p[i]) < 0.01f);
	}
	print_message("local NED to WGS84, 2 km from the origin: %.3f m from the exact ECEF conversion\n", worst);
	assert_true(worst < 0.5);
}

static void test_estim_takes_the_declination_at_run_time_and_converges_on_the_ground(void **state)
{
	static struct synth s;
	struct estim_config c;
	estim_config_default(&c);   /* declination unknown (NAN) */
	struct rest_arg a = { 0, 0, 60 * DEG };
	synth_init(&s, traj_rest, &a, &c);
	synth_run(&s, 20.0);
	/* the issue: on the ground an unknown declination leaves the heading
	 * off by it, its sigma near 20 deg, and arming refused */
	struct estim_status st;
	estim_get_status(&s.e, &st);
	double ea, ey, ep, ev;
	synth_errors(&s, &ea, &ey, &ep, &ev);
	print_message("declination unknown after 20 s: yaw error %.2f deg, sigma %.1f deg\n", ey,
		      D(st.yaw_sigma_rad) / DEG);
	assert_false(estim_is_converged(&s.e));
	assert_true(D(st.yaw_sigma_rad) > 10 * DEG);
	assert_true(fabs(ey - DECL_DEG) < 1.0);
	/* bad values change nothing */
	uint32_t resets = st.count.yaw_resets;
	assert_int_equal(estim_set_declination(&s.e, NAN, 2.0f), -EINVAL);
	assert_int_equal(estim_set_declination(&s.e, 181.0f, 2.0f), -EINVAL);
	assert_int_equal(estim_set_declination(&s.e, 10.0f, 0.0f), -EINVAL);
	assert_int_equal(estim_set_declination(&s.e, 10.0f, NAN), -EINVAL);
	estim_get_status(&s.e, &st);
	assert_int_equal(st.count.yaw_resets, resets);
	assert_true(isnan(s.e.cfg.mag_declination_deg));
	/* the world magnetic model's declination: the heading turns onto the
	 * truth at once, its sigma that of the table, and the filter converges */
	assert_int_equal(estim_set_declination(&s.e, (float)DECL_DEG, 2.0f), 0);
	estim_get_status(&s.e, &st);
	assert_int_equal(st.count.yaw_resets, resets + 1);
	print_message("declination set: yaw sigma %.2f deg\n", D(st.yaw_sigma_rad) / DEG);
	assert_true(D(st.yaw_sigma_rad) >= 2.0 * DEG && D(st.yaw_sigma_rad) < 6.5 * DEG);
	synth_errors(&s, &ea, &ey, &ep, &ev);
	assert_true(ey < 0.5);
	synth_run(&s, 1.0);
	assert_true(estim_is_converged(&s.e));
	synth_run(&s, 10.0);
	synth_errors(&s, &ea, &ey, &ep, &ev);
	print_message("10 s on: yaw error %.3f deg\n", ey);
	assert_true(ey < 0.3 && ea < 0.1);
	assert_true(estim_is_converged(&s.e));
}

static void test_estim_aligns_on_a_declination_set_before_alignment(void **state)
{
	static struct synth s;
	struct estim_config c;
	estim_config_default(&c);
	struct rest_arg a = { 0, 0, -120 * DEG };
	synth_init(&s, traj_rest, &a, &c);
	assert_int_equal(estim_set_declination(&s.e, (float)DECL_DEG, 2.0f), 0);
	synth_run(&s, 15.0);
	double ea, ey, ep, ev;
	synth_errors(&s, &ea, &ey, &ep, &ev);
	assert_true(ey < 0.3);
	assert_true(estim_is_converged(&s.e));
}


/* ---- the airspeed sensor's health check ---------------------------------- */

enum pitot_kind { PITOT_GOOD = 1, PITOT_STUCK, PITOT_CREEP, PITOT_OFF, PITOT_GUSTY };

struct pitot_fault {
	enum pitot_kind kind;
	double t0;              /* when the fault begins, s */
	double value;           /* STUCK: the reading, m/s */
	double tau;             /* CREEP: the trapped pressure's leak, s */
	double g_fast, g_slow;  /* GUSTY: the gusts the sensor sees and the inertial path not */
};

static double gauss(uint32_t *r)
{
	double u1 = 0.5 * (dither(r) + 1.0) + 1e-12, u2 = 0.5 * (dither(r) + 1.0);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double pitot_fail(struct synth *s, double v)
{
	struct pitot_fault *f = s->pitot_ctx;
	const double dt = 0.02;
	if (f->kind == PITOT_GUSTY) {
		/* two first-order Gauss-Markov gusts: sigma 1.5 m/s over 1 s, 1 m/s over 20 s */
		f->g_fast += -f->g_fast * dt / 1.0 + 1.5 * sqrt(2.0 * dt / 1.0) * gauss(&s->rng);
		f->g_slow += -f->g_slow * dt / 20.0 + 1.0 * sqrt(2.0 * dt / 20.0) * gauss(&s->rng);
		return v + f->g_fast + f->g_slow;
	}
	if (f->kind == PITOT_GOOD || s->t < f->t0)
		return v;
	switch (f->kind) {
	case PITOT_STUCK: return f->value;
	case PITOT_CREEP: return v * exp(-(s->t - f->t0) / (2.0 * f->tau));   /* the pressure leaks with tau */
	case PITOT_OFF: return 1.5 * dither(&s->rng);
	default: return v;
	}
}

struct hc_result {
	double disabled_s, enabled_s;       /* from the fault's start; -1: never */
	double worst_before, worst_after;   /* the estimate's airspeed off the truth, m/s: before the
	                                     * sensor is disabled, and from 5 s after it */
	double wind_at_disable;             /* the wind estimate's error just after, m/s */
	double min_prob, max_ratio_good;    /* the ratio's largest before the fault */
	bool valid_always, meas_nan_after;
	bool synthetic_flag_right;          /* VEHICLE_AIRSPEED_SYNTHETIC exactly while disabled */
	uint32_t disables;
};

/* A glide turning at 6 deg/s (a circle a minute, 12 deg of bank) in light
 * wobbles, still air: 60 s of a good pitot (the wind observed), then the
 * fault until t_end. */
static void hc_run(struct pitot_fault *f, uint32_t options, double t_end, struct hc_result *r)
{
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	c.arsp_options = options;
	struct glide_arg a = { .turn_rad_s = 6 * DEG, .crab_rad = 0, .course0_rad = 0.3, .turb = 0.5 };
	synth_init(&s, traj_glide, &a, &c);
	s.pitot = pitot_fail;
	s.pitot_ctx = f;
	memset(r, 0, sizeof(*r));
	r->disabled_s = r->enabled_s = -1;
	r->min_prob = 1;
	r->valid_always = r->meas_nan_after = r->synthetic_flag_right = true;
	double t_dis = -1;
	while (s.t < t_end) {
		synth_run(&s, 0.02);
		struct estim_arsp_health h;
		estim_get_arsp(&s.e, &h);
		struct vehicle_state vs;
		estim_get_state(&s.e, &vs);
		if (s.t < 30)
			continue;
		r->min_prob = fmin(r->min_prob, D(h.prob));
		double err = fabs(D(vs.airspeed_m_s) - 20.0);
		if (!(vs.valid & VEHICLE_AIRSPEED_VALID))
			r->valid_always = false;
		if (((vs.valid & VEHICLE_AIRSPEED_SYNTHETIC) != 0) != h.disabled)
			r->synthetic_flag_right = false;
		if (s.t < f->t0) {
			r->max_ratio_good = fmax(r->max_ratio_good, D(h.test_ratio));
			continue;
		}
		if (h.disabled && t_dis < 0) {
			t_dis = s.t;
			r->disabled_s = s.t - f->t0;
			r->wind_at_disable = hypot(D(vs.wind_ne_m_s[0]), D(vs.wind_ne_m_s[1]));
		}
		if (t_dis < 0)
			r->worst_before = fmax(r->worst_before, err);
		else if (h.disabled && s.t > t_dis + 5)
			r->worst_after = fmax(r->worst_after, err);
		if (h.disabled && !isnan(vs.airspeed_meas_m_s))
			r->meas_nan_after = false;
		if (t_dis >= 0 && !h.disabled && r->enabled_s < 0)
			r->enabled_s = s.t - f->t0;
		r->disables = h.disables;
	}
}

static const uint32_t hc_defaults = ESTIM_ARSP_DISABLE | ESTIM_ARSP_REENABLE | ESTIM_ARSP_CONSISTENCY;

static void test_estim_airspeed_check_disables_a_pitot_stuck_high_and_flies_the_synthetic_airspeed(void **state)
{
	(void)state;
	struct pitot_fault f = { .kind = PITOT_STUCK, .t0 = 90, .value = 28 };
	struct hc_result r;
	hc_run(&f, hc_defaults, 150, &r);
	print_message("stuck at 28 m/s (truth 20): disabled %.2f s after; the estimate's airspeed off by up to %.2f m/s "
		      "before, %.2f after; wind %.2f m/s off just after; healthy before: test ratio up to %.2f\n",
		      r.disabled_s, r.worst_before, r.worst_after, r.wind_at_disable, r.max_ratio_good);
	assert_true(r.disabled_s > 4.0 && r.disabled_s < 6.0);
	assert_true(r.disables == 1);
	assert_true(r.worst_before < 3.0);
	assert_true(r.worst_after < 1.0 && r.wind_at_disable < 1.0);
	assert_true(r.valid_always);
	assert_true(r.meas_nan_after);
	assert_true(r.synthetic_flag_right);
	/* the reading never agrees again: never used again */
	assert_true(r.enabled_s < 0);
}

static void test_estim_airspeed_check_catches_a_reading_near_zero(void **state)
{
	(void)state;
	struct pitot_fault f = { .kind = PITOT_OFF, .t0 = 90 };
	struct hc_result r;
	hc_run(&f, hc_defaults, 150, &r);
	print_message("tube off, reading about 0: disabled %.2f s after; airspeed off by up to %.2f m/s before, %.2f "
		      "after; wind %.2f m/s off just after\n", r.disabled_s, r.worst_before, r.worst_after,
		      r.wind_at_disable);
	assert_true(r.disabled_s > 4.0 && r.disabled_s < 6.0);
	assert_true(r.worst_after < 1.0 && r.wind_at_disable < 1.0);
	assert_true(r.valid_always);
	assert_true(r.meas_nan_after);
}

/* A blocked port leaking: the reading creeps to zero, each sample well
 * within the filter's gate, dragging the filter's wind along; the check's
 * reference wind is not dragged, and the wind is put back when it trips. */
static void test_estim_airspeed_check_catches_a_creep_and_undoes_the_drag(void **state)
{
	(void)state;
	struct pitot_fault f = { .kind = PITOT_CREEP, .t0 = 90, .tau = 60 };
	struct hc_result r;
	hc_run(&f, hc_defaults, 300, &r);
	print_message("leak of 60 s: disabled %.2f s after; the estimate's airspeed off by up to %.2f m/s before, "
		      "%.2f after; wind %.2f m/s off just after\n", r.disabled_s, r.worst_before, r.worst_after,
		      r.wind_at_disable);
	assert_true(r.disabled_s > 0 && r.disabled_s < 90.0 && r.worst_before < 5.0);
	assert_true(r.wind_at_disable < 2.0 && r.worst_after < 2.0);
	assert_true(r.valid_always);
	assert_true(r.meas_nan_after);
}

/* Gusts the sensor sees and the ground velocity does not (as if the air
 * moved without the aircraft's path), 1.8 m/s in all: over twice what
 * fulmar-sim's turbulence 7.7 does to the airspeed at 40 m (0.8 m/s, one
 * standard deviation, docs/flight-control.md), over 10 minutes: never
 * disabled. */
static void test_estim_airspeed_check_lets_a_gusty_good_pitot_be(void **state)
{
	(void)state;
	struct pitot_fault f = { .kind = PITOT_GUSTY, .t0 = 1e9 };
	struct hc_result r;
	hc_run(&f, hc_defaults, 630, &r);
	print_message("gusts of 1.5 m/s (1 s) and 1 m/s (20 s): lowest health probability %.3f, largest test ratio "
		      "%.2f\n", r.min_prob, r.max_ratio_good);
	assert_true(r.disables == 0 && r.disabled_s < 0);
	assert_true(r.min_prob > 0.5);
}

static void test_estim_airspeed_check_uses_the_sensor_again_when_it_agrees(void **state)
{
	(void)state;
	/* stuck for 20 s, then good again */
	struct pitot_fault f = { .kind = PITOT_STUCK, .t0 = 90, .value = 28 };
	struct hc_result r;
	static struct synth s;
	struct estim_config c;
	cfg_default(&c);
	struct glide_arg a = { .turn_rad_s = 6 * DEG, .crab_rad = 0, .course0_rad = 0.3, .turb = 0.5 };
	for (int allow = 1; allow >= 0; allow--) {
		c.arsp_options = allow ? hc_defaults : hc_defaults & ~ESTIM_ARSP_REENABLE;
		synth_init(&s, traj_glide, &a, &c);
		s.pitot = pitot_fail;
		s.pitot_ctx = &f;
		f.kind = PITOT_STUCK;
		synth_run(&s, 110);
		struct estim_arsp_health h;
		estim_get_arsp(&s.e, &h);
		assert_true(h.disabled);
		f.kind = PITOT_GOOD;
		double back = -1;
		while (s.t < 200 && back < 0) {
			synth_run(&s, 0.02);
			estim_get_arsp(&s.e, &h);
			if (!h.disabled)
				back = s.t - 110;
		}
		print_message("ARSPD_OPTIONS %u: good again after 20 s stuck: used again %.2f s later\n",
			      c.arsp_options, back);
		if (allow) {
			/* from p < 0.1 to over 0.95 at 0.98 p + 0.02 every 200 ms: 143 checks */
			assert_true(back > 25.0 && back < 40.0);
			assert_true(h.enables == 1);
		} else {
			assert_true(back < 0 && h.disabled);
		}
	}
	(void)r;
	/* bit 0 clear: judged, never disabled */
	f.kind = PITOT_STUCK;
	hc_run(&f, hc_defaults & ~ESTIM_ARSP_DISABLE, 130, &r);
	assert_true(r.disabled_s < 0 && r.min_prob < 0.1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accum_constant_rate_gives_the_exact_rotation),
		cmocka_unit_test(test_accum_coning_correction_beats_a_plain_sum),
		cmocka_unit_test(test_accum_rotating_body_keeps_the_inertial_velocity_change),
		cmocka_unit_test(test_estim_aligns_tilt_and_heading_at_rest),
		cmocka_unit_test(test_estim_aligns_at_rest_with_an_imu_at_its_tolerance),
		cmocka_unit_test(test_estim_tracks_a_turntable),
		cmocka_unit_test(test_estim_tracks_a_coordinated_turn),
		cmocka_unit_test(test_estim_aligns_in_a_turbulent_glide),
		cmocka_unit_test(test_estim_aligns_in_a_turning_turbulent_glide),
		cmocka_unit_test(test_estim_aligns_in_a_glide_without_a_compass_on_the_gps_course),
		cmocka_unit_test(test_estim_integrates_any_imu_rate_by_its_time_stamps),
		cmocka_unit_test(test_estim_takes_slow_sensors_at_their_own_rate_when_every_sample_is_fresh),
		cmocka_unit_test(test_estim_counts_a_gap_and_holds_the_sample_one_interval),
		cmocka_unit_test(test_estim_moves_a_fix_from_before_a_pause_on_with_it),
		cmocka_unit_test(test_estim_publishes_the_airspeed_sensors_reading),
		cmocka_unit_test(test_estim_uses_gps_from_1_to_10_hz_at_its_delay),
		cmocka_unit_test(test_estim_fuses_gps_at_its_measurement_time),
		cmocka_unit_test(test_estim_gps_fusion_follows_the_kalman_gain_and_gates_jumps),
		cmocka_unit_test(test_estim_baro_rebases_when_it_disagrees_with_gps_height),
		cmocka_unit_test(test_estim_stuck_baro_is_refused_and_gps_height_takes_its_place),
		cmocka_unit_test(test_estim_covariance_stays_symmetric_bounded_and_finite),
		cmocka_unit_test(test_estim_structured_covariance_prediction_equals_the_dense_product),
		cmocka_unit_test(test_estim_steps_on_the_main_loop_grid),
		cmocka_unit_test(test_estim_rejects_bad_samples_and_counts_them),
		cmocka_unit_test(test_estim_believes_the_gps_after_the_accelerometer_clips),
		cmocka_unit_test(test_estim_wgs84_conversion_matches_the_ellipsoid),
		cmocka_unit_test(test_estim_takes_the_declination_at_run_time_and_converges_on_the_ground),
		cmocka_unit_test(test_estim_aligns_on_a_declination_set_before_alignment),
		cmocka_unit_test(test_estim_airspeed_check_disables_a_pitot_stuck_high_and_flies_the_synthetic_airspeed),
		cmocka_unit_test(test_estim_airspeed_check_catches_a_reading_near_zero),
		cmocka_unit_test(test_estim_airspeed_check_catches_a_creep_and_undoes_the_drag),
		cmocka_unit_test(test_estim_airspeed_check_lets_a_gusty_good_pitot_be),
		cmocka_unit_test(test_estim_airspeed_check_uses_the_sensor_again_when_it_agrees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

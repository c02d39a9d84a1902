// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Cost of the estimator: time per filter step (prediction, covariance,
 * output predictor) and per fusion of each sensor, and the share of one core
 * the whole filter takes at the filter rate with every sensor at its real
 * rate. A benchmark, not a test: tools/bench-estim runs it (and callgrind).
 *
 *   bench_estim [-r RATE_HZ] [-s SECONDS] [-m all|imu]
 *
 * -m runs one workload only (for callgrind: the timed part is the function
 * workload_run, so --toggle-collect=workload_run counts just the filter).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "estim/estim.h"
#include "estim/estim_math.h"

#define G 9.80665
#define DEG (M_PI / 180.0)

enum {
	W_IMU = 1,
	W_GPS = 2,
	W_BARO = 4,
	W_MAG = 8,
	W_TAS = 16,
	W_ALL = 31,
};

struct ev {                      /* one millisecond of sensor samples */
	struct imu_sample imu;
	struct baro_sample baro;
	struct mag_sample mag;
	struct airspeed_sample tas;
	struct gps_fix gps;
	unsigned char has;       /* W_* bits */
};

static uint32_t rng = 12345;

static float noise(float sigma)
{
	/* sum of uniforms: cheap and near enough to Gaussian for a load */
	float s = 0.0f;
	for (int i = 0; i < 4; i++) {
		rng = rng * 1664525u + 1013904223u;
		s += (float)(rng >> 8) / 16777216.0f - 0.5f;
	}
	return s * sigma * 1.732f;
}

/* A level 25 deg banked circle at 18 m/s, 100 m up, after 3 s straight. */
static void make_events(struct ev *ev, long n, uint64_t t0_us)
{
	const double V = 18, phi_t = 25 * DEG, Om = G * tan(phi_t) / V;
	const double me[3] = { 0.23 * cos(0.2), 0.23 * sin(0.2), -0.52 };
	double x = 0, y = 0;
	for (long k = 0; k < n; k++) {
		double t = k * 1e-3;
		bool turning = t > 3.0;
		double phi = turning ? phi_t : 0.0, om = turning ? Om : 0.0;
		double psi = turning ? Om * (t - 3.0) : 0.0;
		x += V * cos(psi) * 1e-3;
		y += V * sin(psi) * 1e-3;
		float q[4], R[3][3];
		em_quat_from_euler((float)phi, 0.0f, (float)remainder(psi, 2 * M_PI), q);
		em_quat_to_dcm(q, R);
		double fn[3] = { -V * om * sin(psi), V * om * cos(psi), -G };
		struct ev *e = &ev[k];
		memset(e, 0, sizeof(*e));
		uint64_t t_us = t0_us + (uint64_t)k * 1000;
		e->imu.t_us = t_us;
		double w[3] = { 0, om * sin(phi), om * cos(phi) };
		for (int i = 0; i < 3; i++) {
			double fb = (double)R[0][i] * fn[0] + (double)R[1][i] * fn[1] + (double)R[2][i] * fn[2];
			e->imu.gyro_rad_s[i] = (float)w[i] + noise(0.003f);
			e->imu.accel_m_s2[i] = (float)fb + noise(0.12f);
		}
		e->has = W_IMU;
		if (k % 20 == 0) {
			e->baro = (struct baro_sample){ t_us, 94000.0f + noise(1.5f), 20.0f };
			e->has |= W_BARO;
			double rho = 94000.0 / (287.05 * 293.15);
			e->tas = (struct airspeed_sample){ t_us, (float)(0.5 * rho * V * V) + noise(1.5f), 20.0f };
			e->has |= W_TAS;
		}
		if (k % 10 == 0) {
			e->mag.t_us = t_us;
			for (int i = 0; i < 3; i++)
				e->mag.field_ut[i] = (float)(100.0 * ((double)R[0][i] * me[0] + (double)R[1][i] * me[1] +
								     (double)R[2][i] * me[2])) + noise(0.2f);
			e->has |= W_MAG;
		}
		if (k % 200 == 0 && t > 0.15) {
			struct gps_fix *g = &e->gps;
			g->t_us = t_us;
			g->fix = GPS_FIX_3D;
			g->num_sv = 12;
			g->lat_deg = -35.36 + (x + (double)noise(1.0f)) / 110946.0;
			g->lon_deg = 149.16 + (y + (double)noise(1.0f)) / 90800.0;
			g->alt_msl_m = 684.0f + noise(1.5f);
			g->vel_ned_m_s[0] = (float)(V * cos(psi)) + noise(0.1f);
			g->vel_ned_m_s[1] = (float)(V * sin(psi)) + noise(0.1f);
			g->vel_ned_m_s[2] = noise(0.1f);
			g->vel_down_valid = true;
			g->h_acc_m = 1.2f;
			g->v_acc_m = 2.0f;
			g->s_acc_m_s = 0.2f;
			e->has |= W_GPS;
		}
	}
}

static uint32_t steps;

static inline void feed(struct estim *e, const struct ev *ev, long from, long to, unsigned mask)
{
	for (long k = from; k < to; k++) {
		const struct ev *x = &ev[k];
		if ((x->has & W_GPS) && (mask & W_GPS))
			estim_push_gps(e, &x->gps);
		if ((x->has & W_BARO) && (mask & W_BARO))
			estim_push_baro(e, &x->baro);
		if ((x->has & W_MAG) && (mask & W_MAG))
			estim_push_mag(e, &x->mag);
		if ((x->has & W_TAS) && (mask & W_TAS))
			estim_push_airspeed(e, &x->tas);
		if (estim_push_imu(e, &x->imu) == 1)
			steps++;
	}
}

/* The measured part (callgrind counts only inside this function). */
__attribute__((noinline)) void workload_run(struct estim *e, const struct ev *ev, long from, long to, unsigned mask);
__attribute__((noinline)) void workload_run(struct estim *e, const struct ev *ev, long from, long to, unsigned mask)
{
	feed(e, ev, from, to, mask);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct estim warm, work;

/* Per-step timing: each filter step is classed by what it fused. */
struct classes {
	double sum[32], max[32];
	uint32_t n[32];
	double total_s, worst_s;
	uint32_t steps;
};

static unsigned fused_mask(const struct estim *e, const uint32_t before[ESTIM_SENSOR_COUNT])
{
	unsigned m = 0;
	if (e->innov[ESTIM_GPS_VEL].fused != before[ESTIM_GPS_VEL] ||
	    e->innov[ESTIM_GPS_POS].fused != before[ESTIM_GPS_POS])
		m |= W_GPS;
	if (e->innov[ESTIM_BARO].fused != before[ESTIM_BARO])
		m |= W_BARO;
	if (e->innov[ESTIM_MAG].fused != before[ESTIM_MAG])
		m |= W_MAG;
	if (e->innov[ESTIM_TAS].fused != before[ESTIM_TAS])
		m |= W_TAS;
	return m;
}

static void timed_run(const struct ev *ev, long from, long to, unsigned mask, struct classes *c)
{
	memset(c, 0, sizeof(*c));
	work = warm;
	struct estim *e = &work;
	for (long k = from; k < to; k++) {
		const struct ev *x = &ev[k];
		double t0 = now_s();
		if ((x->has & W_GPS) && (mask & W_GPS))
			estim_push_gps(e, &x->gps);
		if ((x->has & W_BARO) && (mask & W_BARO))
			estim_push_baro(e, &x->baro);
		if ((x->has & W_MAG) && (mask & W_MAG))
			estim_push_mag(e, &x->mag);
		if ((x->has & W_TAS) && (mask & W_TAS))
			estim_push_airspeed(e, &x->tas);
		uint32_t before[ESTIM_SENSOR_COUNT];
		for (int i = 0; i < ESTIM_SENSOR_COUNT; i++)
			before[i] = e->innov[i].fused;
		int r = estim_push_imu(e, &x->imu);
		double dt = now_s() - t0;
		c->total_s += dt;
		if (r != 1)
			continue;
		unsigned m = fused_mask(e, before);
		c->sum[m] += dt;
		c->n[m]++;
		if (dt > c->max[m])
			c->max[m] = dt;
		if (dt > c->worst_s)
			c->worst_s = dt;
		c->steps++;
	}
}

static double mean_us(const struct classes *c, unsigned m)
{
	return c->n[m] ? c->sum[m] / c->n[m] * 1e6 : (double)NAN;
}

int main(int argc, char **argv)
{
	float rate = 400.0f;
	double seconds = 60.0;
	const char *mode = NULL;
	int c;
	while ((c = getopt(argc, argv, "r:s:m:")) != -1) {
		switch (c) {
		case 'r':
			rate = strtof(optarg, NULL);
			break;
		case 's':
			seconds = strtod(optarg, NULL);
			break;
		case 'm':
			mode = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench_estim [-r RATE_HZ] [-s SECONDS] [-m all|imu]\n");
			return 2;
		}
	}
	const double warm_s = 10.0;
	long n_warm = (long)(warm_s * 1000), n = n_warm + (long)(seconds * 1000);
	struct ev *ev = malloc(sizeof(*ev) * (size_t)n);
	if (!ev) {
		perror("bench_estim");
		return 1;
	}
	make_events(ev, n, 1000000);
	struct estim_config cfg;
	estim_config_default(&cfg);
	cfg.filter_rate_hz = rate;
	cfg.mag_declination_deg = (float)(0.2 / DEG);
	estim_init(&warm, &cfg);
	feed(&warm, ev, 0, n_warm, W_ALL);
	if (!(estim_health(&warm) & ESTIM_H_ORIGIN_SET)) {
		fprintf(stderr, "bench_estim: the filter did not start\n");
		return 1;
	}

	if (mode) {
		/* one pass of one workload, for callgrind */
		work = warm;
		steps = 0;
		double t0 = now_s();
		workload_run(&work, ev, n_warm, n, strcmp(mode, "imu") == 0 ? W_IMU : W_ALL);
		double dt = now_s() - t0;
		printf("mode %s: %u filter steps, %.1f s of flight, %.2f us per step, health 0x%x, delayed steps %u\n",
		       mode, steps, seconds, dt / steps * 1e6, estim_health(&work), work.count.steps - warm.count.steps);
		free(ev);
		return 0;
	}

	struct classes best, cl;
	timed_run(ev, n_warm, n, W_ALL, &best);
	for (int i = 0; i < 4; i++) {
		timed_run(ev, n_warm, n, W_ALL, &cl);
		if (cl.total_s < best.total_s)
			best = cl;
	}
	double pred = mean_us(&best, 0);
	printf("estimator at %.0f Hz, %.0f s of a banked circle with every sensor at its real rate, "
	       "best of 5 runs, %u filter steps\n", (double)rate, seconds, best.steps);
	printf("  filter step without a fusion (1 kHz accumulation, prediction, covariance, output predictor): "
	       "%.2f us mean, %.2f us max\n", pred, best.max[0] * 1e6);
	/* steps classed by what they fused (GPS: position 2 + velocity 3 +
	 * height 1 scalars; compass 3 + declination 1; airspeed + sideslip 2;
	 * baro 1), minus the plain step: the cost of those fusions */
	for (unsigned m = 1; m < 32; m++) {
		if (!best.n[m])
			continue;
		printf("  steps that fused%s%s%s%s: +%.2f us mean over the plain step (%u steps)\n",
		       m & W_GPS ? " GPS" : "", m & W_BARO ? " baro" : "", m & W_MAG ? " compass" : "",
		       m & W_TAS ? " airspeed+sideslip" : "", mean_us(&best, m) - pred, best.n[m]);
	}
	double load = best.total_s / seconds * 100.0;
	printf("  everything, sample intake included: %.2f us per filter step on average, worst step %.1f us; "
	       "%.3f %% of one core\n", best.total_s / best.steps * 1e6, best.worst_s * 1e6, load);
	printf("  goal: the whole filter under 2 %% of one core at 400 Hz: %s\n", load < 2.0 ? "met" : "NOT met");
	free(ev);
	return 0;
}

// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The barometer: its intake (pressure altitude, and the air density the
 * airspeed uses; a stuck one refused) and its fusion on the delayed horizon against the height
 * and the baro bias, rebased when the two disagree for good.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"

#define N ESTIM_NSTATES

static float row_baro(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *hb = meas;
	memset(h, 0, sizeof(float) * N);
	h[ESTIM_S_POS + 2] = -1.0f;
	h[ESTIM_S_BARO_BIAS] = 1.0f;
	return *hb - (-e->x.pos[2] + e->x.baro_bias);
}

void estim_fuse_baro(struct estim *e, const struct estim_obs *o)
{
	const struct estim_config *c = &e->cfg;
	float hb = o->v[0];
	if (!e->baro_ref_set) {
		e->baro_ref_m = hb + e->x.pos[2] - e->x.baro_bias;
		e->baro_ref_set = true;
	}
	float y = hb - e->baro_ref_m;
	float r[3] = { c->baro_noise_m * c->baro_noise_m, 0.0f, 0.0f };
	int rc = estim_fuse_vector(e, ESTIM_BARO, 1, row_baro, &y, r, c->hgt_gate, o->t_us);
	if (rc == -ERANGE) {
		if (e->baro_fail_since_us == 0)
			e->baro_fail_since_us = o->t_us;
		if ((float)(o->t_us - e->baro_fail_since_us) * 1e-6f > c->hgt_disagree_reset_s) {
			/* Baro and the filter's height disagree for good. With GPS
			 * height in use the baro is the one off: rebase its bias;
			 * without, the baro is all there is: move the height. */
			if (estim_recent(e->t_delayed_us, e->innov[ESTIM_GPS_HGT].last_fused_us, 2.0f)) {
				e->x.baro_bias = y + e->x.pos[2];
				estim_cov_reset(e, ESTIM_S_BARO_BIAS, 1, c->baro_noise_m * c->baro_noise_m);
			} else {
				e->x.pos[2] = -(y - e->x.baro_bias);
				estim_cov_reset(e, ESTIM_S_POS + 2, 1, c->baro_noise_m * c->baro_noise_m);
				estim_out_replay(e);
			}
			e->count.baro_resets++;
			e->hgt_reset_us = o->t_us;
			e->baro_fail_since_us = 0;
		}
	} else if (rc == 0) {
		e->baro_fail_since_us = 0;
	}
}

int estim_push_baro(struct estim *e, const struct baro_sample *s)
{
	uint64_t t_us = estim_sample_time(e, s->t_us);
	if (!isfinite(s->pressure_pa) || s->pressure_pa < 30000.0f || s->pressure_pa > 115000.0f) {
		e->count.baro_invalid++;
		e->innov[ESTIM_BARO].invalid++;
		return -EINVAL;
	}
	/* A barometer's noise (a pascal or more) never holds one pressure for
	 * ESTIM_BARO_STUCK_US: it is stuck, and its height would hold the
	 * aircraft's still. (Not a count of samples: many simulators send the
	 * last value again with every IMU sample until their baro measures
	 * anew.) Refused; a second later the baro is faulted and the GPS's
	 * height takes its place (estim_gps.c). */
	if (s->pressure_pa != e->baro_last_pa || !e->baro_same_since_us) {
		e->baro_last_pa = s->pressure_pa;
		e->baro_same_since_us = t_us;
	} else if (t_us - e->baro_same_since_us >= ESTIM_BARO_STUCK_US) {
		e->count.baro_frozen++;
		return -EINVAL;
	}
	float tk = isfinite(s->temp_c) && s->temp_c > -60.0f && s->temp_c < 90.0f ? s->temp_c + 273.15f : 288.15f;
	e->baro_temp_k = tk;
	e->air_density = s->pressure_pa / (287.05f * tk);
	e->last_baro_valid_us = t_us;
	if (!e->running)
		return -EAGAIN;
	/* ISA pressure altitude (troposphere) */
	float h = 44330.77f * (1.0f - powf(s->pressure_pa / 101325.0f, 0.190263f));
	struct estim_obs o = { .t_us = estim_meas_time(t_us, e->cfg.baro_delay_ms), .v = { h, 0.0f, 0.0f } }, avg;
	if (!estim_decim_add(e, &e->baro_dec, ESTIM_BARO_MAX_HZ, &o, &avg))
		return 0;
	return estim_obs_push(e, e->baro_buf, &e->baro_head, &e->baro_count, &avg);
}

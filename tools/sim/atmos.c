// SPDX-License-Identifier: GPL-3.0-or-later
#include "atmos.h"

#include <math.h>
#include <string.h>

#define ISA_T0_K 288.15
#define ISA_P0_PA 101325.0
#define ISA_LAPSE_K_M 0.0065
#define ISA_R_J_KGK 287.05287
#define ISA_TROPOPAUSE_M 11000.0
#define EARTH_R_M 6356766.0 /* ISO 2533 radius for geopotential altitude */
#define FT_M 0.3048

void sim_atmos_isa(double alt_msl_m, double temp_offset_k, struct sim_atmos *out)
{
	double h = EARTH_R_M * alt_msl_m / (EARTH_R_M + alt_msl_m);
	double gr = SIM_G0_M_S2 / ISA_R_J_KGK;
	double t_std, p;
	if (h > 20000.0)
		h = 20000.0;
	if (h <= ISA_TROPOPAUSE_M) {
		t_std = ISA_T0_K - ISA_LAPSE_K_M * h;
		p = ISA_P0_PA * pow(t_std / ISA_T0_K, gr / ISA_LAPSE_K_M);
	} else {
		double t11 = ISA_T0_K - ISA_LAPSE_K_M * ISA_TROPOPAUSE_M;
		double p11 = ISA_P0_PA * pow(t11 / ISA_T0_K, gr / ISA_LAPSE_K_M);
		t_std = t11;
		p = p11 * exp(-gr * (h - ISA_TROPOPAUSE_M) / t11);
	}
	/* A warmer day at the same pressure altitude: pressure as standard, density lower. */
	out->temp_k = t_std + temp_offset_k;
	out->pressure_pa = p;
	out->density_kg_m3 = p / (ISA_R_J_KGK * out->temp_k);
}

struct v3 sim_wind_steady_ned(const struct sim_wind_config *cfg)
{
	double a = cfg->from_deg * M_PI / 180.0;
	/* Blowing from the north means the air moves south. */
	return v3_make(-cfg->speed_m_s * cos(a), -cfg->speed_m_s * sin(a), 0.0);
}

static double next_gust_delay(struct sim_wind *w)
{
	double mean = w->cfg.gust_mean_interval_s > 0.0 ? w->cfg.gust_mean_interval_s : 10.0;
	return -mean * log(1.0 - sim_rng_uniform(&w->rng_gust));
}

void sim_wind_init(struct sim_wind *w, const struct sim_wind_config *cfg)
{
	memset(w, 0, sizeof(*w));
	w->cfg = *cfg;
	sim_rng_init(&w->rng_turb, cfg->seed, 0x7475726275ull);
	sim_rng_init(&w->rng_gust, cfg->seed, 0x67757374ull);
	w->gust_t_s = -1.0;
	w->gust_next_s = next_gust_delay(w);
}

static struct v3 gust_step(struct sim_wind *w, double dt_s)
{
	const struct sim_wind_config *c = &w->cfg;
	if (c->gust_max_m_s <= 0.0 || c->gust_length_s <= 0.0)
		return v3_make(0, 0, 0);
	if (w->gust_t_s < 0.0) {
		w->gust_next_s -= dt_s;
		if (w->gust_next_s > 0.0)
			return v3_make(0, 0, 0);
		/* A new gust: random amplitude up to the maximum, random horizontal
		 * direction, with a vertical part a third as strong. */
		double amp = c->gust_max_m_s * (0.3 + 0.7 * sim_rng_uniform(&w->rng_gust));
		double dir = 2.0 * M_PI * sim_rng_uniform(&w->rng_gust);
		double vert = (sim_rng_uniform(&w->rng_gust) - 0.5) * 2.0 / 3.0;
		w->gust_peak_ned_m_s = v3_make(amp * cos(dir), amp * sin(dir), amp * vert);
		w->gust_t_s = 0.0;
	}
	double s = 0.5 * (1.0 - cos(2.0 * M_PI * w->gust_t_s / c->gust_length_s));
	w->gust_t_s += dt_s;
	if (w->gust_t_s >= c->gust_length_s) {
		w->gust_t_s = -1.0;
		w->gust_next_s = next_gust_delay(w);
	}
	return v3_scale(w->gust_peak_ned_m_s, s);
}

/* Dryden forms (MIL-F-8785C): H_u = sigma_u sqrt(2 L_u / (pi V)) / (1 + T_u s),
 * H_v,w = sigma sqrt(L / (pi V)) (1 + sqrt(3) T s) / (1 + T s)^2, T = L / V.
 * The filters below have those shapes and are scaled so the output's variance is
 * sigma^2 (checked by a unit test); the white input is eta / sqrt(dt). */
static double dryden_first(double *x, double T, double sigma, double dt, double eta)
{
	double a = exp(-dt / T);
	*x = a * *x + sqrt(1.0 - a * a) * eta;
	return sigma * *x;
}

static double dryden_second(double *x1, double *x2, double T, double sigma, double dt, double eta)
{
	/* x1' = (-x1 + n) / T, x2' = (-x2 + x1) / T, y = x2 + sqrt(3) (x1 - x2);
	 * with unit-PSD n the variance of y is 1 / T. */
	double n = eta / sqrt(dt);
	double a = exp(-dt / T);
	double x1_old = *x1;
	*x1 = a * *x1 + (1.0 - a) * n;
	*x2 = a * *x2 + (1.0 - a) * x1_old;
	double y = *x2 + sqrt(3.0) * (*x1 - *x2);
	return sigma * sqrt(T) * y;
}

struct v3 sim_wind_step(struct sim_wind *w, double dt_s, double alt_agl_m, double airspeed_m_s)
{
	const struct sim_wind_config *c = &w->cfg;
	struct v3 steady = sim_wind_steady_ned(c);
	struct v3 gust = gust_step(w, dt_s);
	if (c->turb_w20_m_s <= 0.0 || dt_s <= 0.0)
		return v3_add(steady, gust);

	double h_ft = alt_agl_m / FT_M;
	if (h_ft < 10.0)
		h_ft = 10.0;
	if (h_ft > 1000.0)
		h_ft = 1000.0;
	double k = 0.177 + 0.000823 * h_ft;
	double lw = h_ft * FT_M;
	double lu = h_ft / pow(k, 1.2) * FT_M;
	double sw = 0.1 * c->turb_w20_m_s;
	double su = sw / pow(k, 0.4);
	double v = airspeed_m_s < 1.0 ? 1.0 : airspeed_m_s;

	/* On the turbulence's own clock (SIM_TURB_TICK_US): between ticks it holds. */
	const double tick_s = (double)SIM_TURB_TICK_US * 1e-6;
	w->turb_due_us += (uint64_t)llround(dt_s * 1e6);
	for (; w->turb_due_us >= SIM_TURB_TICK_US; w->turb_due_us -= SIM_TURB_TICK_US) {
		double u_t = dryden_first(&w->tu, lu / v, su, tick_s, sim_rng_gauss(&w->rng_turb));
		double v_t = dryden_second(&w->tv1, &w->tv2, lu / v, su, tick_s, sim_rng_gauss(&w->rng_turb));
		double w_t = dryden_second(&w->tw1, &w->tw2, lw / v, sw, tick_s, sim_rng_gauss(&w->rng_turb));
		/* Low-altitude turbulence is aligned with the mean wind (u along it). */
		double a = c->from_deg * M_PI / 180.0;
		double ux = -cos(a), uy = -sin(a);
		w->turb_m_s = v3_make(u_t * ux - v_t * uy, u_t * uy + v_t * ux, w_t);
	}
	return v3_add(v3_add(steady, gust), w->turb_m_s);
}

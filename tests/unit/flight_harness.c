// SPDX-License-Identifier: GPL-3.0-or-later
#include "flight_harness.h"

#include <math.h>
#include <string.h>

#define DEG (M_PI / 180.0)

void flight_init(struct flight *f, const struct flight_config *cfg)
{
	memset(f, 0, sizeof(*f));
	sim_airframe_default(&f->af);
	sim_state_init(&f->af, &f->s);
	f->home = sim_home_default();
	struct sim_wind_config wc = {
		.speed_m_s = cfg->wind_m_s,
		.from_deg = cfg->wind_from_deg,
		.gust_max_m_s = cfg->gust_m_s,
		.gust_mean_interval_s = 8.0,
		.gust_length_s = 2.0,
		.turb_w20_m_s = cfg->turb_w20_m_s,
		.seed = cfg->seed ? cfg->seed : 1,
	};
	sim_wind_init(&f->wind, &wc);
	int hz = cfg->control_hz > 0 ? cfg->control_hz : 50;
	f->div = FLIGHT_SIM_HZ / hz;
	f->dt_ctl = (double)f->div / FLIGHT_SIM_HZ;

	nav_params_default(&f->np);
	nav_init(&f->nav, f->home.lat_deg, f->home.lon_deg);
	ctl_params_default(&f->cp);
	ctl_init(&f->ctl);
	servo_params_default(&f->sp);
	for (int i = 0; i < SERVO_CHANNELS; i++) {
		f->sp.ch[i].servo_min = 1000.0f;
		f->sp.ch[i].servo_max = 2000.0f;
	}
	f->sp.ch[2].servo_trim = 1000.0f;
	servo_init(&f->servo);
}

void flight_trimmed(struct flight *f, double va, double height_m, double heading_deg,
		    double north_m, double east_m)
{
	struct sim_atmos atm;
	sim_atmos_isa(f->home.alt_m + height_m, 0.0, &atm);
	struct sim_trim t;
	if (sim_trim_level(&f->af, atm.density_kg_m3, va, &t) != 0)
		memset(&t, 0, sizeof(t));
	sim_state_init(&f->af, &f->s);
	f->s.pos_ned_m = v3_make(north_m, east_m, -height_m);
	f->s.att = quat_from_euler(0.0, t.alpha_rad, heading_deg * DEG);
	struct v3 air = quat_rotate(f->s.att, v3_make(va * cos(t.alpha_rad) * cos(t.beta_rad),
						      va * sin(t.beta_rad),
						      va * sin(t.alpha_rad) * cos(t.beta_rad)));
	f->wind_ned = sim_wind_steady_ned(&f->wind.cfg);
	f->s.vel_ned_m_s = v3_add(air, f->wind_ned);
	f->s.airspeed_m_s = va;
	f->s.on_ground = false;
	f->u = (struct sim_controls){ t.aileron, t.elevator, t.rudder, t.throttle };
	f->servo.throttle = (float)t.throttle;
	f->servo.started = true;
}

void flight_truth(const struct flight *f, struct vehicle_state *vs, float accel_body[3])
{
	const struct sim_state *s = &f->s;
	memset(vs, 0, sizeof(*vs));
	vs->t_us = (uint64_t)llround(s->t_s * 1e6);
	vs->valid = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID |
		    VEHICLE_AIRSPEED_VALID | VEHICLE_WIND_VALID;
	vs->q[0] = (float)s->att.w;
	vs->q[1] = (float)s->att.x;
	vs->q[2] = (float)s->att.y;
	vs->q[3] = (float)s->att.z;
	double r, p, y;
	quat_to_euler(s->att, &r, &p, &y);
	vs->roll_rad = (float)r;
	vs->pitch_rad = (float)p;
	vs->yaw_rad = (float)y;
	vs->rate_rad_s[0] = (float)s->rate_body_rad_s.x;
	vs->rate_rad_s[1] = (float)s->rate_body_rad_s.y;
	vs->rate_rad_s[2] = (float)s->rate_body_rad_s.z;
	struct sim_lla lla = sim_ned_to_lla(&f->home, s->pos_ned_m);
	vs->lat_deg = lla.lat_deg;
	vs->lon_deg = lla.lon_deg;
	vs->alt_msl_m = (float)lla.alt_m;
	vs->alt_rel_m = (float)-s->pos_ned_m.z;
	vs->vel_ned_m_s[0] = (float)s->vel_ned_m_s.x;
	vs->vel_ned_m_s[1] = (float)s->vel_ned_m_s.y;
	vs->vel_ned_m_s[2] = (float)s->vel_ned_m_s.z;
	/* an airspeed sensor reads equivalent airspeed */
	struct sim_atmos atm;
	sim_atmos_isa(lla.alt_m, 0.0, &atm);
	double tas = v3_norm(v3_sub(s->vel_ned_m_s, f->wind_ned));
	vs->airspeed_m_s = (float)(tas * sqrt(atm.density_kg_m3 / SIM_RHO0_KG_M3));
	vs->wind_ne_m_s[0] = (float)f->wind_ned.x;
	vs->wind_ne_m_s[1] = (float)f->wind_ned.y;
	vs->pos_sigma_m = 0.0f;
	accel_body[0] = (float)s->accel_body_m_s2.x;
	accel_body[1] = (float)s->accel_body_m_s2.y;
	accel_body[2] = (float)s->accel_body_m_s2.z;
}

void flight_controls_from_pwm(const uint16_t pwm[SERVO_CHANNELS], struct sim_controls *u)
{
	u->aileron = (pwm[0] - 1500.0) / 500.0;
	u->elevator = (pwm[1] - 1500.0) / 500.0;
	u->throttle = ((pwm[2] - 1500.0) / 500.0 + 1.0) / 2.0;
	u->rudder = (pwm[3] - 1500.0) / 500.0;
}

void flight_step(struct flight *f)
{
	float dt = (float)f->dt_ctl;
	flight_truth(f, &f->vs, f->accel_body);
	if (f->no_airspeed)
		f->vs.valid &= ~(uint32_t)VEHICLE_AIRSPEED_VALID;
	f->vs.alt_rel_m += f->alt_bias_m;
	f->vs.alt_msl_m += f->alt_bias_m;
	if (f->rf_max_m > 0.0f && f->s.t_s >= f->rf_next_s) {
		f->rf_next_s = f->s.t_s + 0.05;
		/* the body's down axis in NED: its z is c.z of body to NED */
		const float *q = f->vs.q;
		double qx = (double)q[1], qy = (double)q[2];
		double cz = 1.0 - 2.0 * (qx * qx + qy * qy);
		double agl = -f->s.pos_ned_m.z;
		double range = cz > 0.05 ? agl / cz : 1e9;
		struct rf_reading rd = { .t_us = (uint64_t)llround(f->s.t_s * 1e6) + 1,
					 .good = range >= 0.2 && range <= (double)f->rf_max_m,
					 .range_m = (float)range, .max_m = f->rf_max_m };
		nav_set_range(&f->nav, &rd);
	}
	float roll, pitch, thr;
	if (f->attitude_only) {
		roll = f->roll_dem_rad;
		pitch = f->pitch_dem_rad;
		thr = f->throttle_dem;
	} else {
		nav_update(&f->nav, &f->np, &f->vs, f->accel_body, dt, &f->nav_out);
		roll = f->nav_out.nav_roll_rad;
		pitch = f->nav_out.nav_pitch_rad;
		thr = f->nav_out.throttle;
	}
	struct ctl_demand d = {
		.roll_rad = roll,
		.pitch_rad = pitch,
		.throttle = f->servo.throttle,
		.accel_y_m_s2 = f->accel_body[1],
		.integrators_off = f->s.on_ground,
	};
	ctl_update(&f->ctl, &f->cp, &f->vs, &d, dt, &f->surf);
	servo_output(&f->servo, &f->sp, &f->surf, thr, dt, f->pwm);
	flight_controls_from_pwm(f->pwm, &f->u);

	for (int i = 0; i < f->div; i++) {
		const double h = 1.0 / FLIGHT_SIM_HZ;
		double agl = -f->s.pos_ned_m.z;
		f->wind_ned = sim_wind_step(&f->wind, h, agl > 0.0 ? agl : 0.0, f->s.airspeed_m_s);
		struct sim_atmos atm;
		sim_atmos_isa(f->home.alt_m + agl, 0.0, &atm);
		struct sim_env env = { f->wind_ned, atm.density_kg_m3 };
		sim_model_step(&f->af, &f->s, &f->u, &env, h);
	}
}

struct nav_wp flight_wp(const struct flight *f, double north_m, double east_m, float alt_m)
{
	struct sim_lla lla = sim_ned_to_lla(&f->home, v3_make(north_m, east_m, 0.0));
	return (struct nav_wp){ lla.lat_deg, lla.lon_deg, alt_m };
}

struct nav_ne flight_pos(const struct flight *f)
{
	return (struct nav_ne){ (float)f->s.pos_ned_m.x, (float)f->s.pos_ned_m.y };
}

double flight_height(const struct flight *f)
{
	return -f->s.pos_ned_m.z;
}

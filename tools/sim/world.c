// SPDX-License-Identifier: GPL-3.0-or-later
#include "world.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wmm_field.h"

#define DEG (M_PI / 180.0)

void sim_world_config_default(struct sim_world_config *c)
{
	memset(c, 0, sizeof(*c));
	sim_airframe_default(&c->airframe);
	sim_sensors_config_default(&c->sensors);
	c->wind.gust_mean_interval_s = 10.0;
	c->wind.gust_length_s = 3.0;
	/* A firm overarm throw of a 2 kg plane: about 11 m/s out of the hand
	 * after a quarter of a second (some 4.5 g along the nose), a few degrees
	 * nose up, from shoulder height. */
	c->launch.hand_height_m = 1.7;
	c->launch.speed_m_s = 11.0;
	c->launch.pitch_deg = 5.0;
	c->launch.duration_s = 0.28;
	c->launch.ramp_s = 0.03;
	c->home = sim_home_default();
	c->seed = 1;
	c->imu_hz = 1000;
	c->rc_rate_hz = 50.0;
	c->state_rate_hz = 50.0;
	c->rc_mode_pwm_us = 1000;
	c->rc_mode_channel = 8;
	/* fulmar's default servo range, 1100-1900 us, on servos whose 1000-2000 us
	 * spans the airframe's travel: the deflection every pulse width had when
	 * the wire carried (pwm - 1500) / 500 (docs/hil.md). */
	c->surface_throw = 0.8;
	/* Off until asked for; the figures they take when they are on. */
	sim_terrain_default(&c->terrain);
	sim_rangefinder_config_for(SIM_RANGEFINDER_NONE, &c->rangefinder);
	/* The MS5611's error band after an autozero at one pressure (TE
	 * MS5611-01BA03 datasheet: +-2.5 mbar over -20..85 C) allows up to
	 * 2.4 Pa/K; 1.5 Pa/K is taken, on a board that warms 12 K over its
	 * first minutes (an estimate: time constant 300 s). */
	c->baro_temp_pa_k = 1.5;
	c->baro_warm_k = 12.0;
	c->baro_warm_tau_s = 300.0;
}

static bool timeline_has_throw(const struct sim_timeline *tl)
{
	for (unsigned int i = 0; tl && i < tl->count; i++)
		if (tl->ev[i].kind == SIM_EV_THROW)
			return true;
	return false;
}

/* The field, or NULL: flat ground at home's height, as before there were fields. */
static const struct sim_terrain *terrain_of(const struct sim_world *w)
{
	return w->cfg.terrain_on ? &w->cfg.terrain : NULL;
}

static struct quat held_attitude(const struct sim_world *w, double pitch_rad)
{
	return quat_from_euler(0.0, pitch_rad, w->cfg.heading_deg * DEG);
}

/* The model's resting state starts a centimetre or so off the grass: let it
 * settle (still air, motor off) before the flight's time starts, so that the
 * first samples are of a plane at rest, not one dropping into the grass. */
static void settle_on_the_ground(struct sim_world *w)
{
	struct sim_atmos a;
	sim_atmos_isa(w->cfg.home.alt_m, 0.0, &a);
	struct sim_env env = { v3_make(0, 0, 0), a.density_kg_m3 };
	struct sim_controls off = { 0.0, 0.0, 0.0, 0.0 };
	for (int i = 0; i < 2000; i++)
		sim_model_step_terrain(&w->cfg.airframe, &w->st, &off, &env, terrain_of(w), 0.001);
	w->st.t_s = 0.0;
	w->st.batt_used_ah = 0.0;
	w->st.impact_speed_max_m_s = 0.0;
	w->st.crashed = false;
	w->st.crash_contact = -1;
	memset(w->st.dig, 0, sizeof(w->st.dig));
}

/* Level flight at the air start's height and airspeed (through the steady
 * wind), wings level, the nose along the heading, pitched to the angle of
 * attack of level trim at that speed (or of a glide, or 0, when the motor
 * cannot hold it level); the accelerometer feels one g of lift. */
static void start_in_the_air(struct sim_world *w)
{
	const struct sim_world_config *c = &w->cfg;
	struct sim_atmos a;
	sim_atmos_isa(c->home.alt_m + c->air_start_alt_m, 0.0, &a);
	struct sim_trim tr;
	double alpha = 0.0;
	if (sim_trim_level(&c->airframe, a.density_kg_m3, c->air_start_speed_m_s, &tr) == 0 ||
	    sim_trim_glide(&c->airframe, a.density_kg_m3, c->air_start_speed_m_s, &tr) == 0)
		alpha = tr.alpha_rad;
	double psi = c->heading_deg * DEG;
	w->st.att = quat_from_euler(0.0, alpha, psi);
	w->st.pos_ned_m = v3_make(0.0, 0.0, -c->air_start_alt_m);
	struct v3 air = v3_make(c->air_start_speed_m_s * cos(psi), c->air_start_speed_m_s * sin(psi), 0.0);
	w->st.vel_ned_m_s = v3_add(air, sim_wind_steady_ned(&c->wind));
	w->st.airspeed_m_s = c->air_start_speed_m_s;
	w->st.alpha_rad = alpha;
	w->st.accel_body_m_s2 = quat_rotate_inv(w->st.att, v3_make(0, 0, -SIM_G0_M_S2));
}

int sim_world_init(struct sim_world *w, const struct sim_world_config *cfg,
		   const struct sim_timeline *tl)
{
	unsigned int sensor_hz = cfg->sensor_hz ? cfg->sensor_hz : cfg->imu_hz;
	if (cfg->imu_hz == 0 || 1000000u % cfg->imu_hz != 0 || sensor_hz > cfg->imu_hz ||
	    cfg->imu_hz % sensor_hz != 0 || cfg->rc_mode_channel < 1 ||
	    cfg->rc_mode_channel > SIM_RC_CHANNELS || cfg->launch.duration_s <= 0.0 ||
	    cfg->launch.speed_m_s <= 0.0)
		return -EINVAL;
	if (timeline_has_throw(tl) && (cfg->air_start || !cfg->airframe.hand_launched))
		return -EINVAL;
	if (cfg->air_start && !(isfinite(cfg->air_start_alt_m) && cfg->air_start_alt_m > 0.0 &&
				isfinite(cfg->air_start_speed_m_s) && cfg->air_start_speed_m_s > 0.0))
		return -EINVAL;
	if (cfg->air_start && cfg->airframe.n_rotors > 0)
		return -EINVAL;
	if (cfg->terrain_on) {
		const struct sim_terrain *t = &cfg->terrain;
		if (!(isfinite(t->field_alt_m) && fabs(t->field_alt_m) <= 100.0 && t->radius_m > 0.0 &&
		      t->bank_m >= 0.0 && fabs(t->slope_deg) <= 15.0 && isfinite(t->slope_towards_deg) &&
		      isfinite(t->field_n_m) && isfinite(t->field_e_m)))
			return -EINVAL;
		/* Home, where the aircraft arms, stays on its ground. */
		if (!cfg->air_start && sim_terrain_height_m(t, 0.0, 0.0) != 0.0)
			return -EINVAL;
	}
	memset(w, 0, sizeof(*w));
	w->cfg = *cfg;
	w->tl = tl;
	w->dt_us = 1000000u / cfg->imu_hz;
	w->cfg.sensor_hz = sensor_hz;
	w->report_every = cfg->imu_hz / sensor_hz;
	/* Rates are counted from the first report, as the sensors' are. */
	w->next_rc_us = w->next_state_us = w->dt_us * w->report_every;
	w->cfg.sensors.seed = cfg->seed;
	w->cfg.sensors.imu_rate_hz = cfg->imu_hz;
	w->cfg.sensors.imu_out_hz = sensor_hz;
	w->cfg.wind.seed = cfg->seed;
	if (cfg->mag_year != 0.0) {
		struct sim_wmm f;
		if (sim_wmm_field(cfg->home.lat_deg, cfg->home.lon_deg, cfg->home.alt_m, cfg->mag_year, &f))
			return -EINVAL;
		w->cfg.sensors.mag_declination_deg = f.decl_deg;
		w->cfg.sensors.mag_inclination_deg = f.incl_deg;
		w->cfg.sensors.mag_field_gauss = f.f_nt * 1e-5;
	}
	if (w->cfg.launch.ramp_s > 0.5 * w->cfg.launch.duration_s)
		w->cfg.launch.ramp_s = 0.5 * w->cfg.launch.duration_s;

	sim_state_init(&w->cfg.airframe, &w->st);
	w->st.att = held_attitude(w, sim_airframe_rest_pitch_rad(&w->cfg.airframe));
	if (cfg->air_start) {
		w->mode = SIM_PHASE_AIR;
		start_in_the_air(w);
	} else if (timeline_has_throw(tl)) {
		w->mode = SIM_PHASE_HELD;
		w->st.pos_ned_m = v3_make(0.0, 0.0, -w->cfg.launch.hand_height_m);
		/* At rest, the accelerometer feels the hand's push against gravity. */
		w->st.accel_body_m_s2 = quat_rotate_inv(w->st.att, v3_make(0, 0, -SIM_G0_M_S2));
	} else {
		w->mode = SIM_PHASE_GROUND;
		settle_on_the_ground(w);
		/* Nobody leaves a model on its wheels alone in a wind near its
		 * stall speed: it would weathervane, roll away or lift a wing
		 * long before the autopilot is ready. A helper holds it where it
		 * stands until the autopilot arms. */
		w->ground_held = w->cfg.airframe.n_wheels > 0;
		w->rest = w->st;
	}
	sim_sensors_init(&w->sens, &w->cfg.sensors);
	sim_wind_init(&w->wind, &w->cfg.wind);
	sim_atmos_isa(w->cfg.home.alt_m - w->st.pos_ned_m.z, 0.0, &w->atm);

	/* Never driven: surfaces neutral, throttle off (all controls 0). */
	w->commanded = (struct sim_controls){ 0.0, 0.0, 0.0, 0.0 };
	for (int i = 0; i < SIM_RC_CHANNELS; i++)
		w->rc_pwm_us[i] = 1500;
	w->rc_pwm_us[2] = 1000;
	w->rc_pwm_us[cfg->rc_mode_channel - 1] = cfg->rc_mode_pwm_us;
	w->rc_on = true;

	/* A world that is not kind: only what is asked for. Its streams are
	 * its own, so that the sensors' draws stay what they were. */
	if (cfg->terrain_on)
		w->truth_cols |= SIM_TRUTH_GROUND;
	if (cfg->rangefinder.kind != SIM_RANGEFINDER_NONE) {
		sim_rangefinder_init(&w->rangefinder, &cfg->rangefinder, cfg->seed);
		w->rangefinder_pub.true_m = w->rangefinder_pub.distance_m = -1.0;
		w->truth_cols |= SIM_TRUTH_GROUND | SIM_TRUTH_RANGE;
	}
	sim_rng_init(&w->rng_pitot, cfg->seed, 0x7069746full);   /* "pito" */
	w->baro_drifts = cfg->baro_drift_on;
	w->baro_weather_pa_s = cfg->baro_weather_hpa_h * 100.0 / 3600.0;
	w->mag_gain_mgauss_a = cfg->mag_current_mgauss_a;
	if (cfg->baro_drift_on)
		w->truth_cols |= SIM_TRUTH_BARO;
	if (v3_norm(cfg->mag_current_mgauss_a) > 0.0)
		w->truth_cols |= SIM_TRUTH_MAG;
	for (unsigned int i = 0; tl && i < tl->count; i++) {
		switch (tl->ev[i].kind) {
		case SIM_EV_BARO_DRIFT: w->truth_cols |= SIM_TRUTH_BARO; break;
		case SIM_EV_MAG_CURRENT: w->truth_cols |= SIM_TRUTH_MAG; break;
		case SIM_EV_PITOT_BLOCK:
		case SIM_EV_PITOT_WATER:
		case SIM_EV_PITOT_OFF: w->truth_cols |= SIM_TRUTH_PITOT; break;
		default: break;
		}
	}
	return 0;
}

uint64_t sim_world_time_us(const struct sim_world *w)
{
	return w->step * w->dt_us;
}

enum sim_phase sim_world_phase(const struct sim_world *w)
{
	if (w->mode == SIM_PHASE_HELD || w->mode == SIM_PHASE_THROW)
		return w->mode;
	return w->st.on_ground ? SIM_PHASE_GROUND : SIM_PHASE_AIR;
}

const char *sim_phase_name(enum sim_phase p)
{
	switch (p) {
	case SIM_PHASE_GROUND: return "ground";
	case SIM_PHASE_HELD: return "held";
	case SIM_PHASE_THROW: return "throw";
	case SIM_PHASE_AIR: return "air";
	default: return "?";
	}
}

struct sim_lla sim_world_lla(const struct sim_world *w)
{
	return sim_ned_to_lla(&w->cfg.home, w->st.pos_ned_m);
}

double sim_world_ground_m(const struct sim_world *w)
{
	return sim_terrain_height_m(terrain_of(w), w->st.pos_ned_m.x, w->st.pos_ned_m.y);
}

double sim_world_agl_m(const struct sim_world *w)
{
	return -w->st.pos_ned_m.z - sim_world_ground_m(w);
}

static double clampd(double x, double lo, double hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

bool sim_world_ctl_is_motor(const struct sim_world *w, int i)
{
	if (w->cfg.airframe.n_rotors > 0)
		return i >= 0 && i < w->cfg.airframe.n_rotors;
	return i == SIM_CTL_THROTTLE;
}

int sim_world_set_actuators(struct sim_world *w, const float controls[SIM_ACTUATORS],
			    uint8_t mode, uint64_t t_us)
{
	for (int i = 0; i < SIM_ACTUATORS; i++) {
		if (!isfinite(controls[i]))
			return -EINVAL;
		float lo = sim_world_ctl_is_motor(w, i) ? 0.0f : -1.0f;
		if (controls[i] < lo || controls[i] > 1.0f)
			return -ERANGE;
	}
	memcpy(w->actuators, controls, sizeof(w->actuators));
	w->armed = (mode & 128u) != 0;
	w->actuators_t_us = t_us;
	int n_rotors = w->cfg.airframe.n_rotors;
	if (n_rotors > 0) {
		/* Motor i + 1's output (ArduCopter's order), off while disarmed as
		 * the plane's motor is; no surfaces. The throttle as the truth and
		 * the status line show it: the motors' mean. */
		double sum = 0.0;
		for (int i = 0; i < n_rotors; i++) {
			w->motor_cmd[i] = w->armed ? (double)controls[i] : 0.0;
			sum += w->motor_cmd[i];
		}
		w->commanded = (struct sim_controls){ 0.0, 0.0, 0.0, sum / n_rotors };
		return 0;
	}
	double c[SIM_CTL_COUNT];
	for (int i = 0; i < SIM_CTL_COUNT; i++)
		c[i] = (double)controls[i];
	double ail = c[SIM_CTL_AILERON] + 0.5 * (c[SIM_CTL_ELEVON_RIGHT] - c[SIM_CTL_ELEVON_LEFT]);
	double elev = c[SIM_CTL_ELEVATOR] + 0.5 * (c[SIM_CTL_ELEVON_LEFT] + c[SIM_CTL_ELEVON_RIGHT]) +
		      0.5 * (c[SIM_CTL_VTAIL_LEFT] + c[SIM_CTL_VTAIL_RIGHT]);
	double rud = c[SIM_CTL_RUDDER] + 0.5 * (c[SIM_CTL_VTAIL_RIGHT] - c[SIM_CTL_VTAIL_LEFT]);
	double k = w->cfg.surface_throw;
	w->commanded.aileron = k * clampd(ail, -1.0, 1.0);
	w->commanded.elevator = k * clampd(elev, -1.0, 1.0);
	w->commanded.rudder = k * clampd(rud, -1.0, 1.0);
	/* A disarmed autopilot's motor is off whatever it sends (as PX4's Gazebo
	 * bridge does); the surfaces follow, as a plane's do on the bench. */
	w->commanded.throttle = w->armed ? c[SIM_CTL_THROTTLE] : 0.0;
	return 0;
}

/* ---- events and faults ---- */

static void note(struct sim_step_out *out, uint64_t t_us, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct sim_step_out *out, uint64_t t_us, const char *fmt, ...)
{
	if (out->n_notes == SIM_NOTES_MAX)
		return;
	char *n = out->notes[out->n_notes++];
	int k = snprintf(n, SIM_NOTE_TEXT, "%.3f ", (double)t_us * 1e-6);
	if (k > 0 && k < SIM_NOTE_TEXT) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(n + k, SIM_NOTE_TEXT - (size_t)k, fmt, ap);
		va_end(ap);
	}
}

static bool active(uint64_t until_us, uint64_t t_us)
{
	return until_us != 0 && t_us < until_us;
}

static uint64_t until(const struct sim_event *e)
{
	if (e->dur_s <= 0.0)
		return UINT64_MAX;
	return e->t_us + (uint64_t)llround(e->dur_s * 1e6);
}

static void per_sensor(uint64_t *table, enum sim_fault_sensor s, uint64_t until_us)
{
	if (s == SIM_FS_IMU) {
		table[SIM_FS_ACCEL] = until_us;
		table[SIM_FS_GYRO] = until_us;
	} else {
		table[s] = until_us;
	}
}

/* The weather's pressure change up to t_us at the present rate. */
static void weather_to(struct sim_world *w, uint64_t t_us)
{
	w->baro_weather_pa += w->baro_weather_pa_s * (double)(t_us - w->baro_weather_t_us) * 1e-6;
	w->baro_weather_t_us = t_us;
}

static void apply_event(struct sim_world *w, const struct sim_event *e, uint64_t t_us,
			struct sim_step_out *out)
{
	struct sim_faults_active *f = &w->f;
	switch (e->kind) {
	case SIM_EV_THROW:
		if (w->mode != SIM_PHASE_HELD) {
			note(out, t_us, "%s ignored: not in the hand", e->text);
			return;
		}
		w->mode = SIM_PHASE_THROW;
		w->throw_start_us = t_us - w->dt_us;
		if (e->v[0] > 0.0)
			w->cfg.launch.speed_m_s = e->v[0];
		break;
	case SIM_EV_RC_SET:
		for (int i = 0; i < SIM_RC_CHANNELS; i++)
			if (e->rc_pwm_us[i])
				w->rc_pwm_us[i] = e->rc_pwm_us[i];
		break;
	case SIM_EV_RC_ON: w->rc_on = true; break;
	case SIM_EV_RC_OFF: w->rc_on = false; break;
	case SIM_EV_RC_LOSS: f->rc_loss_until_us = until(e); break;
	case SIM_EV_GPS_LOSS: f->gps_loss_until_us = until(e); break;
	case SIM_EV_GPS_GLITCH:
		f->gps_glitch_until_us = until(e);
		f->gps_glitch_ned_m = v3_make(e->v[0], e->v[1], e->v[2]);
		break;
	case SIM_EV_FREEZE: per_sensor(f->freeze_until_us, e->sensor, until(e)); break;
	case SIM_EV_DROPOUT: per_sensor(f->dropout_until_us, e->sensor, until(e)); break;
	case SIM_EV_BIAS:
		switch (e->sensor) {
		case SIM_FS_ACCEL: f->accel_bias_m_s2 = v3_make(e->v[0], e->v[1], e->v[2]); break;
		case SIM_FS_GYRO:
			f->gyro_bias_rad_s = v3_make(e->v[0] * DEG, e->v[1] * DEG, e->v[2] * DEG);
			break;
		case SIM_FS_MAG: f->mag_bias_gauss = v3_make(e->v[0], e->v[1], e->v[2]); break;
		case SIM_FS_BARO: f->baro_bias_pa = e->v[0]; break;
		case SIM_FS_AIRSPEED: f->airspeed_bias_pa = e->v[0]; break;
		case SIM_FS_BATTERY: f->batt_bias_v = e->v[0]; break;
		case SIM_FS_RANGEFINDER: f->rangefinder_bias_m = e->v[0]; break;
		default: break;
		}
		break;
	case SIM_EV_PITOT_BLOCK:
	case SIM_EV_PITOT_WATER:
	case SIM_EV_PITOT_OFF:
		f->pitot = e->kind;
		f->pitot_until_us = until(e);
		f->pitot_tau_s = e->v[0];
		/* A port blocks on the pressure it holds now: the last reading's. */
		w->pitot_trapped_pa = w->atm.pressure_pa + w->pub.airspeed.diff_pressure_pa;
		w->pitot_slug = false;
		w->pitot_last_us = t_us;
		break;
	case SIM_EV_BARO_DRIFT:
		weather_to(w, t_us);             /* the old rate up to now */
		w->baro_drifts = true;
		w->baro_weather_pa_s = e->v[0] * 100.0 / 3600.0;
		break;
	case SIM_EV_MAG_CURRENT:
		w->mag_gain_mgauss_a = v3_make(e->v[0], e->v[1], e->v[2]);
		break;
	case SIM_EV_LINK_LOSS: f->link_loss_until_us = until(e); break;
	case SIM_EV_MOTOR_FAIL: f->motor_fail_until_us = until(e); break;
	case SIM_EV_WIND:
		w->wind.cfg.speed_m_s = e->v[0];
		w->wind.cfg.from_deg = e->v[1];
		break;
	default:
		return;
	}
	note(out, t_us, "%s", e->text);
}

/* A timed fault whose time is up: say so and clear it. */
static void expire(uint64_t *until_us, uint64_t t_us, const char *what, const char *sensor,
		   struct sim_step_out *out)
{
	if (*until_us == 0 || t_us < *until_us)
		return;
	note(out, t_us, "%s%s%s end", what, sensor[0] ? " " : "", sensor);
	*until_us = 0;
}

static void events_and_faults(struct sim_world *w, uint64_t t_us, struct sim_step_out *out)
{
	struct sim_faults_active *f = &w->f;
	expire(&f->rc_loss_until_us, t_us, "rc_loss", "", out);
	expire(&f->gps_loss_until_us, t_us, "gps_loss", "", out);
	expire(&f->gps_glitch_until_us, t_us, "gps_glitch", "", out);
	expire(&f->link_loss_until_us, t_us, "link_loss", "", out);
	expire(&f->motor_fail_until_us, t_us, "motor_fail", "", out);
	if (f->pitot && t_us >= f->pitot_until_us) {
		note(out, t_us, "pitot %s end",
		     f->pitot == SIM_EV_PITOT_BLOCK ? "block" : f->pitot == SIM_EV_PITOT_WATER ? "water" : "off");
		f->pitot = 0;
		f->pitot_until_us = 0;
	}
	for (int s = 1; s < SIM_FS_COUNT; s++) {
		expire(&f->freeze_until_us[s], t_us, "freeze", sim_fault_sensor_name((enum sim_fault_sensor)s), out);
		expire(&f->dropout_until_us[s], t_us, "dropout", sim_fault_sensor_name((enum sim_fault_sensor)s), out);
	}
	while (w->tl && w->next_event < w->tl->count && w->tl->ev[w->next_event].t_us <= t_us)
		apply_event(w, &w->tl->ev[w->next_event++], t_us, out);
}

/* ---- physics ---- */

/* The arm's acceleration along the nose and the speed it has given, tau
 * seconds into the throw (a trapezoid in time). */
static void throw_profile(const struct sim_launch_config *l, double tau, double *a, double *v)
{
	double T = l->duration_s, r = l->ramp_s;
	double A = l->speed_m_s / (T - r);
	if (tau <= 0.0) {
		*a = *v = 0.0;
	} else if (r > 0.0 && tau < r) {
		*a = A * tau / r;
		*v = A * tau * tau / (2.0 * r);
	} else if (tau <= T - r) {
		*a = A;
		*v = A * (r / 2.0 + tau - r);
	} else if (tau < T) {
		*a = A * (T - tau) / r;
		*v = l->speed_m_s - A * (T - tau) * (T - tau) / (2.0 * r);
	} else {
		*a = 0.0;
		*v = l->speed_m_s;
	}
}

/* In the hand the arm dictates the motion; the airframe's own forces only
 * decide what its propeller, battery and pitot see. */
static void hand_step(struct sim_world *w, const struct sim_env *env, double dt_s, uint64_t t_us)
{
	const struct sim_airframe *p = &w->cfg.airframe;
	const struct sim_launch_config *l = &w->cfg.launch;
	struct sim_state *s = &w->st;
	double a = 0.0, v = 0.0, theta = 0.0, theta_dot = 0.0;
	double psi = w->cfg.heading_deg * DEG;
	if (w->mode == SIM_PHASE_THROW) {
		double tau = (double)(t_us - w->throw_start_us) * 1e-6;
		throw_profile(l, tau, &a, &v);
		theta = l->pitch_deg * DEG * v / l->speed_m_s;
		theta_dot = l->pitch_deg * DEG * a / l->speed_m_s;
		struct v3 along = v3_make(cos(theta) * cos(psi), cos(theta) * sin(psi), -sin(theta));
		s->vel_ned_m_s = v3_scale(along, v);
		s->pos_ned_m = v3_madd(s->pos_ned_m, s->vel_ned_m_s, dt_s);
		if (tau >= l->duration_s) {
			/* Released: from the next step on, it flies on its own. */
			theta_dot = 0.0;
			w->mode = SIM_PHASE_AIR;
		}
	}
	s->att = held_attitude(w, theta);
	s->rate_body_rad_s = v3_make(0.0, theta_dot, 0.0);
	s->t_s += dt_s;

	struct sim_forces f;
	sim_forces_eval(p, s, &w->applied, env, &f);
	/* Specific force: the path's acceleration (along the nose, and v theta_dot
	 * towards the belly's opposite as the path curves up) less gravity. */
	struct v3 kin = v3_make(a, 0.0, -v * theta_dot);
	s->accel_body_m_s2 = v3_add(kin, quat_rotate_inv(s->att, v3_make(0, 0, -SIM_G0_M_S2)));
	s->airspeed_m_s = f.airspeed_m_s;
	s->alpha_rad = f.alpha_rad;
	s->beta_rad = f.beta_rad;
	s->thrust_n = f.thrust_n;
	s->prop_rad_s = f.prop_rad_s;
	s->on_ground = false;
	s->batt_current_a = f.batt_current_a;
	s->batt_used_ah += f.batt_current_a * dt_s / 3600.0;
	s->batt_voltage_v = sim_batt_ocv_v(p, s->batt_used_ah) - f.batt_current_a * p->batt_r_ohm;
}

static void physics(struct sim_world *w, uint64_t t_us)
{
	double dt = (double)w->dt_us * 1e-6;
	double agl = -w->st.pos_ned_m.z;
	sim_atmos_isa(w->cfg.home.alt_m + agl, 0.0, &w->atm);
	if (w->cfg.terrain_on)
		agl = sim_world_agl_m(w);        /* the wind's boundary layer follows the ground */
	w->wind_ned_m_s = sim_wind_step(&w->wind, dt, agl, w->st.airspeed_m_s);
	struct sim_env env = { w->wind_ned_m_s, w->atm.density_kg_m3 };
	w->applied = w->commanded;
	if (active(w->f.motor_fail_until_us, t_us))
		w->applied.throttle = 0.0;
	if (w->cfg.airframe.n_rotors > 0) {
		/* motor_fail stops every motor of a multirotor */
		bool failed = active(w->f.motor_fail_until_us, t_us);
		for (int i = 0; i < w->cfg.airframe.n_rotors; i++)
			w->motor_out[i] = failed ? 0.0 : w->motor_cmd[i];
		sim_rotors_set(&w->cfg.airframe, &w->st, w->motor_out);
	}
	if (w->mode == SIM_PHASE_HELD || w->mode == SIM_PHASE_THROW)
		hand_step(w, &env, dt, t_us);
	else
		sim_model_step_terrain(&w->cfg.airframe, &w->st, &w->applied, &env, terrain_of(w), dt);
	if (w->ground_held && w->armed)
		w->ground_held = false;          /* let go: from this step on it is free */
	if (w->ground_held) {
		/* The airframe's forces decide what its pitot, propeller and
		 * battery see; the helper's hand decides where it is. */
		w->st.pos_ned_m = w->rest.pos_ned_m;
		w->st.vel_ned_m_s = w->rest.vel_ned_m_s;
		w->st.att = w->rest.att;
		w->st.rate_body_rad_s = w->rest.rate_body_rad_s;
		w->st.accel_body_m_s2 = w->rest.accel_body_m_s2;
		w->st.on_ground = true;
	}
	if (w->cfg.batt_endless) {
		/* A soak's battery (tools/soak): the charge stays full, the sag under load stays. */
		w->st.batt_used_ah = 0.0;
		w->st.batt_voltage_v = sim_batt_ocv_v(&w->cfg.airframe, 0.0) -
				       w->st.batt_current_a * w->cfg.airframe.batt_r_ohm;
	}
	sim_atmos_isa(w->cfg.home.alt_m - w->st.pos_ned_m.z, 0.0, &w->atm);
}

/* ---- sensors through the faults ---- */

static bool due(uint64_t *next_us, double rate_hz, uint64_t t_us)
{
	if (rate_hz <= 0.0 || t_us < *next_us)
		return false;
	uint64_t per = (uint64_t)llround(1e6 / rate_hz);
	*next_us += per;
	if (*next_us <= t_us)
		*next_us = t_us + per;
	return true;
}

static void gps_through_faults(struct sim_world *w, const struct sim_gps_sample *raw, uint64_t t_us)
{
	const struct sim_faults_active *f = &w->f;
	struct sim_gps_sample *g = &w->pub.gps;
	if (active(f->freeze_until_us[SIM_FS_GPS], t_us) && w->gps_have_fix) {
		g->t_us = t_us;   /* the same fix, again */
		return;
	}
	struct sim_gps_sample last = *g;
	*g = *raw;
	if (active(f->gps_glitch_until_us, t_us)) {
		struct sim_lla p = { raw->lat_deg, raw->lon_deg, raw->alt_m };
		struct v3 ned = v3_add(sim_lla_to_ned(&w->cfg.home, &p), f->gps_glitch_ned_m);
		p = sim_ned_to_lla(&w->cfg.home, ned);
		g->lat_deg = p.lat_deg;
		g->lon_deg = p.lon_deg;
		g->alt_m = p.alt_m;
	}
	if (active(f->gps_loss_until_us, t_us)) {
		/* A receiver without a fix: still reporting, nothing to trust. */
		g->fix_type = 1;
		g->sats = raw->sats / 4;
		g->eph_m = g->epv_m = 99.99;
		g->vel_ned_m_s = v3_make(0, 0, 0);
		g->lat_deg = last.lat_deg;
		g->lon_deg = last.lon_deg;
		g->alt_m = last.alt_m;
	} else {
		w->gps_have_fix = true;
	}
}

/* The compass's interference from the current in the power leads: a field
 * in body axes that grows with the battery's current (ArduPilot's
 * compassmot measures the same per amp). */
static void mag_interference(struct sim_world *w, struct sim_mag_sample *mag)
{
	if (!(w->truth_cols & SIM_TRUTH_MAG))
		return;                          /* no interference asked for: the reading as it was */
	w->mag_int_gauss = v3_scale(w->mag_gain_mgauss_a, 1e-3 * w->st.batt_current_a);
	mag->field_gauss = v3_add(mag->field_gauss, w->mag_int_gauss);
}

/* The barometer's drift: the weather's pressure change (it moves the
 * reading, not the air the aircraft flies in: a few hPa are a few tenths of
 * a per cent of its density) and the error of a sensor warming after
 * power-on. docs/simulator.md, "The barometer's drift". */
static void baro_drift(struct sim_world *w, struct sim_baro_sample *b, uint64_t t_us)
{
	if (!w->baro_drifts)
		return;
	weather_to(w, t_us);
	double warm = 0.0;
	if (w->cfg.baro_drift_on && w->cfg.baro_warm_tau_s > 0.0)
		warm = w->cfg.baro_warm_k * (1.0 - exp(-(double)t_us * 1e-6 / w->cfg.baro_warm_tau_s));
	w->baro_err_pa = w->baro_weather_pa + w->cfg.baro_temp_pa_k * warm;
	b->pressure_pa += w->baro_err_pa;
	b->temp_c += warm;
}

/* A pitot that fails as pitots do (docs/simulator.md, "The pitot's failures"). */
static void pitot_failure(struct sim_world *w, struct sim_airspeed_sample *a, uint64_t t_us)
{
	const struct sim_faults_active *f = &w->f;
	double p_static = w->atm.pressure_pa, dt = (double)(t_us - w->pitot_last_us) * 1e-6;
	w->pitot_last_us = t_us;
	double noise = w->cfg.sensors.airspeed_noise_pa * sim_rng_gauss(&w->rng_pitot);
	double dp;
	switch (f->pitot) {
	case SIM_EV_PITOT_BLOCK:
		/* The pressure trapped in the tube against the static port's: it
		 * holds while the static pressure holds (rises in a climb, falls
		 * in a descent) and leaks towards the static pressure. */
		if (f->pitot_tau_s > 0.0)
			w->pitot_trapped_pa += (p_static - w->pitot_trapped_pa) * (1.0 - exp(-dt / f->pitot_tau_s));
		dp = w->pitot_trapped_pa - p_static + noise;
		break;
	case SIM_EV_PITOT_WATER: {
		/* Water in the tube: it damps and lowers the pressure that gets
		 * through, bubbles through noisily, and a slug now and then
		 * closes it (about 0.2 s every second or so). */
		double u = sim_rng_uniform(&w->rng_pitot);
		w->pitot_slug = w->pitot_slug ? u >= 0.1 : u < 0.02;
		double g = sim_rng_gauss(&w->rng_pitot);
		dp = w->pitot_slug ? 0.1 * a->diff_pressure_pa + 3.0 * g : 0.7 * a->diff_pressure_pa + 15.0 * g;
		break;
	}
	default:
		/* Off: both sides of the sensor see the cabin's pressure. */
		dp = noise;
		break;
	}
	a->diff_pressure_pa = dp;
	a->ias_m_s = dp > 0.0 ? sqrt(2.0 * dp / SIM_RHO0_KG_M3) : 0.0;
}

static void sensors(struct sim_world *w, uint64_t t_us, struct sim_step_out *out)
{
	const struct sim_faults_active *f = &w->f;
	struct sim_sensor_out raw;
	unsigned int m = sim_sensors_step(&w->sens, &w->st, &w->cfg.home, &w->atm, t_us, &raw);
	struct sim_sensor_out *pub = &w->pub;
#define DROPPED(s) active(f->dropout_until_us[s], t_us)
#define FROZEN(s) active(f->freeze_until_us[s], t_us)
	if (m & SIM_SENS_IMU) {
		pub->imu.t_us = t_us;
		if (!DROPPED(SIM_FS_ACCEL)) {
			if (!FROZEN(SIM_FS_ACCEL))
				pub->imu.accel_m_s2 = v3_add(raw.imu.accel_m_s2, f->accel_bias_m_s2);
			out->fresh |= SIM_OUT_ACCEL;
		}
		if (!DROPPED(SIM_FS_GYRO)) {
			if (!FROZEN(SIM_FS_GYRO))
				pub->imu.gyro_rad_s = v3_add(raw.imu.gyro_rad_s, f->gyro_bias_rad_s);
			out->fresh |= SIM_OUT_GYRO;
		}
	}
	if (m & SIM_SENS_MAG)
		mag_interference(w, &raw.mag);
	if ((m & SIM_SENS_MAG) && !DROPPED(SIM_FS_MAG)) {
		if (!FROZEN(SIM_FS_MAG)) {
			pub->mag = raw.mag;
			pub->mag.field_gauss = v3_add(raw.mag.field_gauss, f->mag_bias_gauss);
		}
		out->fresh |= SIM_OUT_MAG;
	}
	if (m & SIM_SENS_BARO)
		baro_drift(w, &raw.baro, t_us);
	if ((m & SIM_SENS_BARO) && !DROPPED(SIM_FS_BARO)) {
		if (!FROZEN(SIM_FS_BARO)) {
			pub->baro = raw.baro;
			pub->baro.pressure_pa += f->baro_bias_pa;
		}
		out->fresh |= SIM_OUT_BARO;
	}
	if ((m & SIM_SENS_AIRSPEED) && active(f->pitot_until_us, t_us))
		pitot_failure(w, &raw.airspeed, t_us);
	if ((m & SIM_SENS_AIRSPEED) && !DROPPED(SIM_FS_AIRSPEED)) {
		if (!FROZEN(SIM_FS_AIRSPEED)) {
			pub->airspeed = raw.airspeed;
			double dp = raw.airspeed.diff_pressure_pa + f->airspeed_bias_pa;
			pub->airspeed.diff_pressure_pa = dp;
			pub->airspeed.ias_m_s = dp > 0.0 ? sqrt(2.0 * dp / SIM_RHO0_KG_M3) : 0.0;
		}
		out->fresh |= SIM_OUT_AIRSPEED;
	}
	if ((m & SIM_SENS_GPS) && !DROPPED(SIM_FS_GPS)) {
		gps_through_faults(w, &raw.gps, t_us);
		out->fresh |= SIM_OUT_GPS;
	}
	if ((m & SIM_SENS_BATT) && !DROPPED(SIM_FS_BATTERY)) {
		if (!FROZEN(SIM_FS_BATTERY)) {
			pub->batt = raw.batt;
			pub->batt.voltage_v += f->batt_bias_v;
		}
		pub->batt.t_us = t_us;
		out->fresh |= SIM_OUT_BATT;
	}
	/* The rangefinder is read with the other slow sensors, at a report. */
	struct sim_rangefinder_reading rr;
	if (w->cfg.rangefinder.kind != SIM_RANGEFINDER_NONE && out->report &&
	    sim_rangefinder_step(&w->rangefinder, terrain_of(w), w->st.pos_ned_m, w->st.att, t_us, &rr) &&
	    !DROPPED(SIM_FS_RANGEFINDER)) {
		if (FROZEN(SIM_FS_RANGEFINDER)) {
			w->rangefinder_pub.t_us = t_us;
			w->rangefinder_pub.true_m = rr.true_m;
		} else {
			if (rr.valid)
				rr.distance_m += f->rangefinder_bias_m;
			w->rangefinder_pub = rr;
		}
		out->fresh |= SIM_OUT_RANGE;
	}
#undef DROPPED
#undef FROZEN
}

void sim_world_step(struct sim_world *w, struct sim_step_out *out)
{
	uint64_t t_us = (w->step + 1) * w->dt_us;
	out->t_us = t_us;
	out->fresh = 0;
	out->n_notes = 0;
	events_and_faults(w, t_us, out);
	physics(w, t_us);
	w->step++;
	out->report = w->step % w->report_every == 0;
	out->first = w->step == w->report_every;
	sensors(w, t_us, out);
	/* The rest, too, only with a report: HIL_SENSOR is the autopilot's clock,
	 * and what comes between two would be stamped ahead of it. */
	if (out->report && due(&w->next_rc_us, w->cfg.rc_rate_hz, t_us) && w->rc_on &&
	    !active(w->f.rc_loss_until_us, t_us))
		out->fresh |= SIM_OUT_RC;
	if (out->report && due(&w->next_state_us, w->cfg.state_rate_hz, t_us))
		out->fresh |= SIM_OUT_STATE;
	out->link_up = !active(w->f.link_loss_until_us, t_us);
}

/* ---- ground truth ---- */

/* snprintf's count, appended at *off of buf (nothing once it is cut). */
static void append(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(*off < len ? buf + *off : NULL, *off < len ? len - *off : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

int sim_truth_csv_header(const struct sim_world *w, char *buf, size_t len)
{
	size_t off = 0;
	append(buf, len, &off, "%s",
	       "t_s,phase,lat_deg,lon_deg,alt_msl_m,pos_n_m,pos_e_m,pos_d_m,"
	       "vel_n_m_s,vel_e_m_s,vel_d_m_s,q_w,q_x,q_y,q_z,roll_deg,pitch_deg,yaw_deg,"
	       "rate_p_deg_s,rate_q_deg_s,rate_r_deg_s,airspeed_m_s,alpha_deg,beta_deg,"
	       "wind_n_m_s,wind_e_m_s,wind_d_m_s,aileron,elevator,rudder,throttle_cmd,throttle,"
	       "thrust_n,armed,batt_v,batt_a,batt_used_mah,on_ground,crashed,impact_m_s,");
	/* A multirotor's motors, before the events, which stay last (they may hold anything). */
	for (int i = 0; i < w->cfg.airframe.n_rotors; i++)
		append(buf, len, &off, "motor%d,", i + 1);
	for (int i = 0; i < w->cfg.airframe.n_rotors; i++)
		append(buf, len, &off, "motor%d_rad_s,", i + 1);
	unsigned int c = w->truth_cols;
	if (c & SIM_TRUTH_GROUND)
		append(buf, len, &off, "ground_m,agl_m,");
	if (c & SIM_TRUTH_RANGE)
		append(buf, len, &off, "rangefinder_true_m,rangefinder_m,");
	if (c & SIM_TRUTH_BARO)
		append(buf, len, &off, "baro_err_pa,baro_err_m,");
	if (c & SIM_TRUTH_MAG)
		append(buf, len, &off, "mag_int_x_mgauss,mag_int_y_mgauss,mag_int_z_mgauss,");
	if (c & SIM_TRUTH_PITOT)
		append(buf, len, &off, "pitot_dp_pa,pitot_ias_m_s,");
	append(buf, len, &off, "events\n");
	return (int)off;
}

int sim_truth_csv_row(const struct sim_world *w, const char *events, char *buf, size_t len)
{
	const struct sim_state *s = &w->st;
	struct sim_lla lla = sim_world_lla(w);
	double roll, pitch, yaw;
	quat_to_euler(s->att, &roll, &pitch, &yaw);
	int n = snprintf(buf, len,
			 "%.3f,%s,%.8f,%.8f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.6f,%.6f,%.6f,%.6f,"
			 "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,"
			 "%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%d,%.3f,%.3f,%.1f,%d,%d,%.2f,",
			 (double)sim_world_time_us(w) * 1e-6, sim_phase_name(sim_world_phase(w)),
			 lla.lat_deg, lla.lon_deg, lla.alt_m, s->pos_ned_m.x, s->pos_ned_m.y,
			 s->pos_ned_m.z, s->vel_ned_m_s.x, s->vel_ned_m_s.y, s->vel_ned_m_s.z, s->att.w,
			 s->att.x, s->att.y, s->att.z, roll / DEG, pitch / DEG, yaw / DEG,
			 s->rate_body_rad_s.x / DEG, s->rate_body_rad_s.y / DEG, s->rate_body_rad_s.z / DEG,
			 s->airspeed_m_s, s->alpha_rad / DEG, s->beta_rad / DEG, w->wind_ned_m_s.x,
			 w->wind_ned_m_s.y, w->wind_ned_m_s.z, w->applied.aileron, w->applied.elevator,
			 w->applied.rudder, w->commanded.throttle, w->applied.throttle, s->thrust_n,
			 w->armed ? 1 : 0, s->batt_voltage_v, s->batt_current_a, s->batt_used_ah * 1000.0,
			 s->on_ground ? 1 : 0, s->crashed ? 1 : 0, s->impact_speed_max_m_s);
	if (n < 0 || (size_t)n >= len)
		return n < 0 ? n : n + 2;
	size_t off = (size_t)n;
	for (int i = 0; i < w->cfg.airframe.n_rotors; i++)
		append(buf, len, &off, "%.4f,", w->motor_out[i]);
	for (int i = 0; i < w->cfg.airframe.n_rotors; i++)
		append(buf, len, &off, "%.1f,", s->motor_rad_s[i]);
	unsigned int c = w->truth_cols;
	if (c & SIM_TRUTH_GROUND)
		append(buf, len, &off, "%.3f,%.3f,", sim_world_ground_m(w), sim_world_agl_m(w));
	if (c & SIM_TRUTH_RANGE) {
		/* The reading as sent: none (-1) without a return or while dropped out. */
		bool sent = w->rangefinder_pub.valid &&
			    !active(w->f.dropout_until_us[SIM_FS_RANGEFINDER], sim_world_time_us(w));
		append(buf, len, &off, "%.3f,%.3f,", w->rangefinder_pub.true_m,
		       sent ? w->rangefinder_pub.distance_m : -1.0);
	}
	if (c & SIM_TRUTH_BARO)
		/* The height the drift makes the barometer read above the truth. */
		append(buf, len, &off, "%.2f,%.3f,", w->baro_err_pa,
		       -w->baro_err_pa / (w->atm.density_kg_m3 * SIM_G0_M_S2));
	if (c & SIM_TRUTH_MAG)
		append(buf, len, &off, "%.2f,%.2f,%.2f,", w->mag_int_gauss.x * 1e3, w->mag_int_gauss.y * 1e3,
		       w->mag_int_gauss.z * 1e3);
	if (c & SIM_TRUTH_PITOT)
		append(buf, len, &off, "%.2f,%.3f,", w->pub.airspeed.diff_pressure_pa, w->pub.airspeed.ias_m_s);
	/* Room for the newline and the terminator, events or not. */
	if (off + 2 > len)
		return (int)off + 2;
	for (const char *e = events ? events : ""; *e && off + 2 < len; e++)
		buf[off++] = (*e == ',' || *e == '\n') ? ' ' : *e;
	buf[off++] = '\n';
	buf[off] = '\0';
	return (int)off;
}

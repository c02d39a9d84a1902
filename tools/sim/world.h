// SPDX-License-Identifier: GPL-3.0-or-later
/* The simulated world, one physics step at a time: the flight model, the
 * hand launch, wind and atmosphere, the sensors, the scripted pilot and the
 * faults of a time-line. Pure: no I/O, no clocks, no allocation; time is the
 * world's own (step count times 1/imu_hz). The HIL link (tools/sim/program)
 * turns each step's output into MAVLink messages; tests drive it directly.
 *
 * A step: apply the time-line's events that are due, advance the physics by
 * one step with the controls last set, sample the sensors at the new time and
 * pass them through the active faults. What changed is flagged in
 * sim_step_out; the values themselves are the world's published ones (pub,
 * rc_pwm_us), which hold their last value while a sensor has nothing new. */
#ifndef FULMAR_SIM_WORLD_H
#define FULMAR_SIM_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atmos.h"
#include "faults.h"
#include "geo.h"
#include "model.h"
#include "rangefinder.h"
#include "sensors.h"
#include "terrain.h"

#define SIM_ACTUATORS 16

/* HIL_ACTUATOR_CONTROLS.controls[] (docs/hil.md, "Autopilot to simulator"):
 * what each index drives on a plane. Wire indices, so the first is 0. On a
 * multirotor (an airframe with rotors) controls[i] is instead motor i + 1's
 * output 0..1 in ArduCopter's motor order, for i < n_rotors; the rest drive
 * nothing. */
enum sim_ctl {
	SIM_CTL_AILERON = 0,       /* -1..1, +1 rolls right */
	SIM_CTL_ELEVATOR,          /* -1..1, +1 pitches the nose up */
	SIM_CTL_RUDDER,            /* -1..1, +1 yaws the nose right */
	SIM_CTL_THROTTLE,          /* 0..1 */
	SIM_CTL_ELEVON_LEFT,       /* -1..1: gain (elevator - aileron) */
	SIM_CTL_ELEVON_RIGHT,      /* -1..1: gain (elevator + aileron) */
	SIM_CTL_VTAIL_LEFT,        /* -1..1: gain (elevator - rudder) */
	SIM_CTL_VTAIL_RIGHT,       /* -1..1: gain (elevator + rudder) */
	SIM_CTL_COUNT
};
#define SIM_NOTES_MAX 8
#define SIM_NOTE_TEXT 112

enum sim_phase {
	SIM_PHASE_GROUND = 1,   /* on the ground (at rest at the start, or landed) */
	SIM_PHASE_HELD,         /* in the hand, waiting for the throw */
	SIM_PHASE_THROW,        /* the arm accelerating it */
	SIM_PHASE_AIR,          /* free flight */
	SIM_PHASE_COUNT
};

/* The hand launch. Held level at hand_height_m, the aircraft is thrown along
 * its nose: the acceleration rises over ramp_s, holds, falls over ramp_s,
 * and it leaves the hand at speed_m_s after duration_s, its nose risen to
 * pitch_deg on the way. */
struct sim_launch_config {
	double hand_height_m;
	double speed_m_s;
	double pitch_deg;
	double duration_s;
	double ramp_s;
};

struct sim_world_config {
	struct sim_airframe airframe;
	struct sim_sensors_config sensors;   /* imu_rate_hz and seed are set from below */
	struct sim_wind_config wind;         /* seed is set from below */
	struct sim_launch_config launch;
	struct sim_lla home;
	double heading_deg;                  /* where the nose points at the start */
	/* An air start: the flight starts air_start_alt_m above home at
	 * air_start_speed_m_s of airspeed, wings level, the nose along heading_deg
	 * at the pitch of level trim at that speed. */
	bool air_start;
	double air_start_alt_m, air_start_speed_m_s;
	/* The earth's magnetic field: 0 keeps the sensors' configured one
	 * (sensors.mag_declination_deg ...); a decimal year (2025.0..2030.0)
	 * sets it to the World Magnetic Model's at home on that date (wmm_field.h). */
	double mag_year;
	uint64_t seed;
	unsigned int imu_hz;                 /* physics steps per second; divides 1000000 */
	/* IMU reports (HIL_SENSOR) per second: divides imu_hz; 0 is imu_hz. Each is
	 * the mean of the IMU's samples at every step since the last one; the
	 * other sensors, RC and the ground truth come out only with a report. */
	unsigned int sensor_hz;
	double rc_rate_hz;                   /* HIL_RC_INPUTS_RAW */
	double state_rate_hz;                /* ground truth (HIL_STATE_QUATERNION) */
	uint16_t rc_mode_pwm_us;             /* the mode switch's channel at the start */
	unsigned int rc_mode_channel;        /* 1-based */
	/* A surface's deflection for a control of +-1 (the autopilot's servo at its
	 * MIN or MAX), as a fraction of the airframe's travel (aileron_max_rad...). */
	double surface_throw;
	/* A world that is not kind (docs/simulator.md): each off by default,
	 * and while off nothing of it is drawn, sent or written. */
	bool terrain_on;                     /* a field (terrain.h); it must leave the start spot on home's ground */
	struct sim_terrain terrain;
	struct sim_rangefinder_config rangefinder;   /* kind SIM_RANGEFINDER_NONE: none */
	/* The barometer's drift: the weather's pressure changing at
	 * baro_weather_hpa_h, and the sensor's error growing by baro_temp_pa_k
	 * per kelvin as the board warms by baro_warm_k after power-on, with
	 * the time constant baro_warm_tau_s. */
	bool baro_drift_on;
	/* A battery that never runs down (tools/soak's hours of circuits). */
	bool batt_endless;
	double baro_weather_hpa_h, baro_temp_pa_k, baro_warm_k, baro_warm_tau_s;
	/* The compass's interference from the motor current, mGauss per amp in
	 * body axes (0: none). */
	struct v3 mag_current_mgauss_a;
};

/* Out of a step: what is new. */
enum sim_out_bits {
	SIM_OUT_ACCEL = 1u << 0,
	SIM_OUT_GYRO = 1u << 1,
	SIM_OUT_MAG = 1u << 2,
	SIM_OUT_BARO = 1u << 3,
	SIM_OUT_AIRSPEED = 1u << 4,
	SIM_OUT_GPS = 1u << 5,
	SIM_OUT_BATT = 1u << 6,
	SIM_OUT_RC = 1u << 7,
	SIM_OUT_STATE = 1u << 8,
	SIM_OUT_RANGE = 1u << 9,             /* a rangefinder reading (DISTANCE_SENSOR) */
};

struct sim_step_out {
	uint64_t t_us;
	unsigned int fresh;        /* enum sim_out_bits */
	bool report;               /* the sensors report at this step (HIL_SENSOR goes out) */
	bool link_up;              /* false during a link_loss: send nothing, take nothing */
	bool first;                /* the first report of the flight */
	unsigned int n_notes;      /* events that fired or ended in this step */
	char notes[SIM_NOTES_MAX][SIM_NOTE_TEXT];
};

/* Fault state: an active fault lasts while t < its until_us (0 = not active,
 * UINT64_MAX = for good). */
struct sim_faults_active {
	uint64_t gps_loss_until_us, gps_glitch_until_us;
	struct v3 gps_glitch_ned_m;
	uint64_t freeze_until_us[SIM_FS_COUNT], dropout_until_us[SIM_FS_COUNT];
	uint64_t rc_loss_until_us, link_loss_until_us, motor_fail_until_us;
	struct v3 accel_bias_m_s2, gyro_bias_rad_s, mag_bias_gauss;
	double baro_bias_pa, airspeed_bias_pa, batt_bias_v, rangefinder_bias_m;
	/* the pitot's failure (one at a time) and until when */
	enum sim_event_kind pitot;           /* SIM_EV_PITOT_BLOCK, _WATER, _OFF, or 0 */
	uint64_t pitot_until_us;
	double pitot_tau_s;                  /* a blocked port's leak */
};

/* Extra ground-truth columns, each there only when its part of the world is on. */
enum sim_truth_cols {
	SIM_TRUTH_GROUND = 1u << 0,          /* ground_m, agl_m */
	SIM_TRUTH_RANGE = 1u << 1,           /* rangefinder_true_m, rangefinder_m */
	SIM_TRUTH_BARO = 1u << 2,            /* baro_err_pa, baro_err_m */
	SIM_TRUTH_MAG = 1u << 3,             /* mag_int_x_mgauss ... */
	SIM_TRUTH_PITOT = 1u << 4,           /* pitot_dp_pa, pitot_ias_m_s */
};

struct sim_world {
	struct sim_world_config cfg;
	const struct sim_timeline *tl;       /* the caller's; may be NULL */
	unsigned int next_event;
	uint64_t step;                       /* steps taken */
	uint64_t dt_us;
	unsigned int report_every;           /* steps per sensor report: imu_hz / sensor_hz */
	struct sim_state st;
	struct sim_sensors sens;
	struct sim_wind wind;
	struct v3 wind_ned_m_s;              /* at the aircraft, last step */
	struct sim_atmos atm;                /* at the aircraft, last step */
	enum sim_phase mode;                 /* GROUND or AIR: free; HELD, THROW: in the hand */
	uint64_t throw_start_us;
	double throw_speed_m_s;
	/* on its wheels at the start: held where it stands until the first arming */
	bool ground_held;
	struct sim_state rest;               /* the pose it is held in */
	/* controls as set by the autopilot, and as the model applies them (a
	 * multirotor's throttle: the mean of its motors' outputs) */
	float actuators[SIM_ACTUATORS];
	bool armed;
	uint64_t actuators_t_us;
	struct sim_controls commanded, applied;
	/* a multirotor's motor outputs 0..1: as commanded (0 while disarmed), as applied */
	double motor_cmd[SIM_ROTORS_MAX], motor_out[SIM_ROTORS_MAX];
	/* the scripted pilot */
	uint16_t rc_pwm_us[SIM_RC_CHANNELS];
	bool rc_on;
	/* faults */
	struct sim_faults_active f;
	uint64_t next_rc_us, next_state_us;
	/* published sensor values (hold their last value) and the last raw samples */
	struct sim_sensor_out pub;
	bool gps_have_fix;
	/* a world that is not kind */
	unsigned int truth_cols;             /* enum sim_truth_cols */
	struct sim_rangefinder rangefinder;
	struct sim_rangefinder_reading rangefinder_pub;  /* the last reading published */
	bool baro_drifts;                    /* the option, or a baro_drift event has come */
	double baro_weather_pa, baro_weather_pa_s, baro_err_pa;
	uint64_t baro_weather_t_us;
	struct v3 mag_gain_mgauss_a, mag_int_gauss;
	struct sim_rng rng_pitot;            /* water in the tube */
	double pitot_trapped_pa;             /* a blocked port's pressure */
	bool pitot_slug;                     /* water over the port now */
	uint64_t pitot_last_us;
};

void sim_world_config_default(struct sim_world_config *c);

/* Starts a flight. An air start starts it flying; a time-line with a throw
 * starts the aircraft in the hand; otherwise it starts at rest on the ground
 * (on its wheels, nose up, if it has them: then held there, as a helper at the
 * wing strut holds it, until the autopilot first arms; a multirotor on its
 * feet, motors stopped). tl is kept (not copied): it must
 * outlive the world, already sorted. Returns 0, or -EINVAL when imu_hz does
 * not divide a second in whole microseconds, or sensor_hz does not divide
 * imu_hz, or the time-line throws an
 * airframe that is not hand-launched or one that starts in the air, or the
 * air start's height or speed is not positive and finite, or a multirotor
 * is to start in the air (it would fall: its motors are off until armed), or
 * a field (terrain_on) is out of its bounds (height within 100 m, slope
 * within 15 degrees, a radius) or, but for an air start, covers the start
 * spot: home, where the aircraft arms, stays on its ground. */
int sim_world_init(struct sim_world *w, const struct sim_world_config *cfg,
		   const struct sim_timeline *tl);

/* One physics step of 1/imu_hz. */
void sim_world_step(struct sim_world *w, struct sim_step_out *out);

/* The autopilot's controls, indexed by enum sim_ctl (docs/hil.md); mode carries
 * MAV_MODE_FLAG bits (128 = armed). Elevons and V-tails become the aileron,
 * elevator and rudder they stand for (half their difference and half their
 * sum) and add to those controls; each surface is then scaled by
 * surface_throw. The throttle is the motor's 0..1, and 0 while disarmed.
 * A multirotor's controls are its motors' outputs (0 while disarmed).
 * They apply from the next step. Returns -EINVAL when a value is not finite,
 * -ERANGE when one is outside its range (sim_world_ctl_is_motor: 0..1, else
 * -1..1), and then applies nothing. */
int sim_world_set_actuators(struct sim_world *w, const float controls[SIM_ACTUATORS],
			    uint8_t mode, uint64_t t_us);
/* Whether controls[i] drives a motor (0..1; without a signal the motor stops):
 * a plane's throttle, a multirotor's motor i + 1. */
bool sim_world_ctl_is_motor(const struct sim_world *w, int i);

uint64_t sim_world_time_us(const struct sim_world *w);
enum sim_phase sim_world_phase(const struct sim_world *w);
const char *sim_phase_name(enum sim_phase p);
/* Geodetic position of the aircraft. */
struct sim_lla sim_world_lla(const struct sim_world *w);
/* The ground's height above home's ground under the aircraft, and the
 * aircraft's (its centre of gravity's) height above that ground. */
double sim_world_ground_m(const struct sim_world *w);
double sim_world_agl_m(const struct sim_world *w);

/* Ground truth as CSV (the format in docs/simulator.md): the header line, and
 * one row of the world's present state with events (a ';'-separated list,
 * may be empty; commas are replaced). Both end in a newline. A multirotor's
 * have its motors' outputs and speeds before the events. Return the
 * length written (snprintf's rules: >= len means cut). */
int sim_truth_csv_header(const struct sim_world *w, char *buf, size_t len);
int sim_truth_csv_row(const struct sim_world *w, const char *events, char *buf, size_t len);

#endif

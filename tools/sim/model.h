// SPDX-License-Identifier: GPL-3.0-or-later
/* 6-DOF flight model of a small fixed-wing electric plane: the Skywalker-class
 * hand-launched foam plane (about 2.3 kg, 1.88 m span, 0.38 m^2 wing), or a
 * 1/4-scale Cub-like tail-dragger on wheels (6.6 kg, 2.7 m span); or of a
 * multirotor (a 1.5 kg quad X, a 2.0 kg hexa X) on the same rigid body,
 * battery and ground. Pure: no I/O, no clocks, no globals, no allocation;
 * parameters and state are caller structs, the time step is an argument.
 *
 * Frames: NED local tangent plane at home (origin on the ground, z down);
 * body x forward, y right, z down; attitude quaternion rotates body to NED.
 * Controls are normalised: aileron +1 rolls right, elevator +1 pitches the
 * nose up, rudder +1 yaws the nose right, throttle 0..1. A multirotor's
 * motors take their outputs (0..1 each) through sim_rotors_set instead. */
#ifndef FULMAR_SIM_MODEL_H
#define FULMAR_SIM_MODEL_H

#include <stdbool.h>

#include "sim_math.h"
#include "terrain.h"

#define SIM_WHEELS_MAX 3
#define SIM_ROTORS_MAX 8
/* Contact points at most (an airframe uses n_contacts of them): a
 * multirotor's four feet, a propeller tip per rotor and its top. */
#define SIM_CONTACTS (4 + SIM_ROTORS_MAX + 1)

/* A wheel on a spring-damper strut. Its force acts at pos_body_m (the tyre's
 * lowest point with the strut unloaded): the strut pushes up, rolling
 * resistance acts along the wheel's heading, and the tyre's side force grows
 * with the slip angle up to mu_side times the load at slip_sat_rad, then
 * stays there (so the aircraft can skid and ground-loop). A steered wheel
 * turns by steer_max_rad at full rudder, so that the nose goes the rudder's
 * way (a Cub's tail wheel, linked to the rudder horn). */
struct sim_wheel {
	struct v3 pos_body_m;
	double k_n_m, c_n_s_m;
	double mu_roll, mu_side, slip_sat_rad;
	double steer_max_rad;              /* 0: does not steer */
};
/* A free-castering wheel (a tail wheel on a swivel, not linked to the rudder)
 * is a wheel that does not steer and whose side force is only its swivel's
 * friction: mu_side small, reached at a small slip (Coulomb-like). */

/* A multirotor's rotor: its hub in body axes (the thrust acts there, along
 * body -z) and which way it turns seen from above. The motor's reaction to
 * the air's torque on the propeller yaws the body the other way: a CCW rotor
 * yaws it clockwise (nose right, +z), as ArduCopter's yaw factor +1 for a
 * CCW motor has it. */
struct sim_rotor {
	struct v3 pos_body_m;
	bool ccw;
};

/* Aerodynamic moment derivatives, per radian (rates non-dimensional: p b/2V,
 * q c/2V, r b/2V). Grouped so a test can switch all aerodynamic moments off. */
struct sim_moment_coefs {
	double pitch0, pitch_alpha, pitch_q, pitch_de;
	double roll_beta, roll_p, roll_r, roll_da, roll_dr;
	double yaw_beta, yaw_p, yaw_r, yaw_da, yaw_dr;
};

struct sim_airframe {
	const char *name;                  /* as --airframe takes it */
	bool hand_launched;                /* thrown by hand; else it takes off from the ground */
	/* mass and inertia about the centre of gravity, body axes */
	double mass_kg;
	double jxx_kg_m2, jyy_kg_m2, jzz_kg_m2, jxz_kg_m2;
	/* geometry */
	double wing_area_m2, span_m, chord_m;
	/* lift: linear below stall, blended to a flat plate above (sigmoid of
	 * sharpness stall_blend around +-alpha_stall_rad) */
	double lift0, lift_alpha, lift_de;
	double alpha_stall_rad, stall_blend;
	/* drag polar CD = cd0 + CL^2 / (pi e AR), flat plate past the stall */
	double cd0, oswald_e, cd_flat_plate;
	/* side force */
	double side_beta, side_dr;
	struct sim_moment_coefs mom;
	/* control surface travel for a normalised command of 1 */
	double aileron_max_rad, elevator_max_rad, rudder_max_rad;
	/* propeller C_T(J), C_Q(J) quadratics in the advance ratio J = 2 pi V / (Omega D) */
	double prop_diam_m;
	double ct0, ct1, ct2, cq0, cq1, cq2;
	/* P-factor: the thrust's line moves sideways with the angle of attack
	 * (the descending blade, on the right of a propeller turning clockwise
	 * seen from behind, takes a bigger bite), by this many metres per radian
	 * to the right: the nose yaws left as the tail sits down. 0: none. */
	double pfactor_m_rad;
	/* Slipstream over the tail: the elevator and rudder feel this fraction of
	 * the propeller's added dynamic pressure, thrust over disc area (momentum
	 * theory: the far wake's is twice that), besides the free stream's. It is
	 * what steers a tail-dragger with power on at walking pace. 0: none. */
	double slipstream_tail;
	/* DC motor: speed constant, winding resistance, no-load current */
	double motor_kv_rpm_v, motor_r_ohm, motor_i0_a;
	/* A multirotor (n_rotors > 0): n_rotors identical motors and propellers
	 * (prop_diam_m, ct0-ct2 with the advance ratio of the flow along the
	 * shaft, cq0: the torque coefficient, taken as constant; the motor
	 * above) in place of the single propeller, and no wing: the wing's
	 * and the surfaces' fields are unused. Each motor's speed follows the
	 * speed its output would hold by a first-order lag of motor_tau_s.
	 * The air acts through the rotors (thrust, reaction torque, and rotor
	 * drag against the flow across each disc, rotor_drag per rad/s of the
	 * rotor's speed: the linear drag of PX4's and RotorS's multirotor
	 * models), the body's quadratic drag (body_cda_m2: drag area along
	 * each body axis) and a linear rotational damping of the frame. The
	 * rotors are listed in the autopilot's motor order. */
	int n_rotors;
	struct sim_rotor rotor[SIM_ROTORS_MAX];
	double motor_tau_s;
	double rotor_drag_n_s_m;           /* N per (m/s of flow across the disc) per (rad/s) */
	struct v3 body_cda_m2;
	struct v3 rot_damp_nm_s;           /* N m per rad/s about each body axis */
	/* LiPo battery */
	int batt_cells;
	double batt_capacity_ah, batt_r_ohm;
	/* ground: contact points in body axes, spring-damper normal force, Coulomb
	 * friction of foam on grass, a higher "dig-in" friction for points that hit
	 * harder than nose_over_speed_m_s */
	int n_contacts;                    /* contact points used, <= SIM_CONTACTS */
	struct v3 contact_body_m[SIM_CONTACTS];
	double ground_k_n_m, ground_c_n_s_m, ground_mu, ground_mu_dig;
	/* Static friction (a multirotor's feet): with ground_kt_n_m > 0 a
	 * touching point is held where it touched by a spring-damper along the
	 * ground (these per point) up to mu times its load, and slides past it;
	 * a steady sideways force short of that moves it a fraction of a
	 * millimetre. 0: the friction is regularised below 5 cm/s, a steep
	 * viscous drag that a steady force creeps through (the planes'). */
	double ground_kt_n_m, ground_ct_n_s_m;
	double nose_over_speed_m_s;
	double crash_speed_m_s;    /* vertical impact speed that counts as a crash */
	/* On an aircraft with wheels or rotors, the contact points that touch
	 * only when it has gone over (the propeller in a nose-over, a wing tip,
	 * the top of the wing or fin; a multirotor's propeller tips or top):
	 * bit i set, point i's touch is a crash however gently it comes.
	 * contact_name[i] names the point for the crash's message. */
	unsigned int contact_crash_mask;
	const char *contact_name[SIM_CONTACTS];
	/* landing gear (none on a hand-launched plane): wheels touch as well as
	 * the contact points, which then stand for the propeller, tail, tips... */
	int n_wheels;
	struct sim_wheel wheel[SIM_WHEELS_MAX];
	/* Flow from any side (an aircraft parked or rolling across the wind):
	 * the lift, the drag and pitching moment that go with the angle of
	 * attack, and the elevator's terms scale with the flow across the span,
	 * cos^2 beta (the cross-flow principle), side-on drag (side_drag, on the
	 * wing area) takes over as the flow turns spanwise, and the sideslip
	 * terms go with sin beta cos beta (side force) and sin beta (moments).
	 * Equal to the plain model to first order in beta. Off: the plain
	 * small-sideslip model, whose lift direction is undefined side-on. */
	bool crossflow;
	double side_drag;
	bool aero_off;             /* no aerodynamic forces or moments (tests) */
};

struct sim_controls {
	double aileron, elevator, rudder;  /* -1 .. 1 */
	double throttle;                   /* 0 .. 1 */
};

/* What the model needs from the air around it at this step. */
struct sim_env {
	struct v3 wind_ned_m_s;
	double density_kg_m3;
};

struct sim_state {
	double t_s;
	/* integrated rigid-body state */
	struct v3 pos_ned_m;
	struct v3 vel_ned_m_s;
	struct quat att;                   /* body to NED */
	struct v3 rate_body_rad_s;
	/* battery */
	double batt_used_ah;
	double batt_current_a;
	double batt_voltage_v;
	/* outputs of the last step, evaluated at its end */
	struct v3 accel_body_m_s2;         /* specific force: what an accelerometer feels */
	double airspeed_m_s, alpha_rad, beta_rad;
	double thrust_n, prop_rad_s;       /* a multirotor: all rotors' thrust, their mean speed */
	/* a multirotor's motors: the outputs their ESCs were last given
	 * (sim_rotors_set) and their speeds */
	double esc_out[SIM_ROTORS_MAX];
	double motor_rad_s[SIM_ROTORS_MAX];
	bool on_ground;
	bool crashed;
	int crash_contact;                 /* the contact point whose touch crashed it; -1: none */
	double impact_speed_max_m_s;
	bool dig[SIM_CONTACTS];            /* contact point ploughing after a hard hit */
	/* static friction (ground_kt_n_m): where each touching point is held */
	bool anchored[SIM_CONTACTS];
	struct v3 anchor_ned_m[SIM_CONTACTS];
};

struct sim_forces {
	struct v3 force_body_n;            /* aero + thrust + ground, without gravity */
	struct v3 moment_body_nm;
	double airspeed_m_s, alpha_rad, beta_rad;
	double thrust_n, prop_rad_s, motor_current_a, batt_current_a;
	double sink_speed_max_m_s;         /* fastest penetration among touching points */
	bool on_ground;
};

/* Defaults for the Skywalker-class plane (values and sources in model.c). */
void sim_airframe_default(struct sim_airframe *p);
/* The Cub-like tail-dragger on wheels (values and sources in model.c). */
void sim_airframe_cub(struct sim_airframe *p);
/* The same tail-dragger with a free-castering tail wheel: steered on the
 * ground by the rudder's air load alone, with p-factor (values in model.c). */
void sim_airframe_cub_caster(struct sim_airframe *p);
/* A 1.5 kg, 450 mm quad X in ArduCopter's motor order (values and sources in model.c). */
void sim_airframe_quad(struct sim_airframe *p);
/* A 2.0 kg, 550 mm hexa X in ArduCopter's motor order (values and sources in model.c). */
void sim_airframe_hexa(struct sim_airframe *p);
/* The airframe called name ("skywalker", "cub", "cub-caster", "quad", "hexa"): 0, or -ENOENT. */
int sim_airframe_by_name(const char *name, struct sim_airframe *p);
/* Names of the airframes, for messages: "skywalker, cub, cub-caster, quad, hexa". */
const char *sim_airframe_names(void);
/* Pitch at rest on the ground: on its wheels (main and tail, the first and
 * last wheel) a tail-dragger sits nose up; without wheels 0. */
double sim_airframe_rest_pitch_rad(const struct sim_airframe *p);

/* At rest at the origin, battery full: level on the belly contact points, or
 * on its wheels at the rest pitch. */
void sim_state_init(const struct sim_airframe *p, struct sim_state *s);
/* A hand launch: thrown from height_m above the ground at speed_m_s, climbing at
 * pitch_deg, towards heading_deg, wings level. */
void sim_state_hand_launch(const struct sim_airframe *p, struct sim_state *s, double speed_m_s,
			   double pitch_deg, double heading_deg, double height_m);

/* Forces and moments on the airframe in state s (battery voltage as s holds it). */
void sim_forces_eval(const struct sim_airframe *p, const struct sim_state *s,
		     const struct sim_controls *u, const struct sim_env *env, struct sim_forces *out);

/* Lift coefficient at angle of attack alpha (elevator neutral). */
double sim_lift_coef(const struct sim_airframe *p, double alpha_rad);
/* Open-circuit voltage of the pack at its state of charge. */
double sim_batt_ocv_v(const struct sim_airframe *p, double used_ah);

/* A multirotor's ESC outputs, 0..1 each in the rotors' order (values outside
 * are held to it; out[n_rotors...] unused): they drive the motors from the
 * next sim_model_step on. The duty cycle of the pack's voltage, as the
 * plane's throttle is. No-op on an airframe without rotors. */
void sim_rotors_set(const struct sim_airframe *p, struct sim_state *s, const double out[SIM_ROTORS_MAX]);
/* The speed a multirotor's motor settles at with v_in volts across it in
 * air of density rho, still air along its shaft (rad/s); its current in
 * *current_a (may be NULL). */
double sim_rotor_steady_rad_s(const struct sim_airframe *p, double rho, double v_in, double *current_a);

/* Advance s by dt_s (RK4 on the rigid body; controls and env held over the
 * step; a multirotor's motor speeds first follow their outputs over dt_s,
 * then are held over the step). */
void sim_model_step(const struct sim_airframe *p, struct sim_state *s,
		    const struct sim_controls *u, const struct sim_env *env, double dt_s);
/* The same over a field (terrain.h): the ground contact on its surface;
 * terrain NULL is sim_model_step's flat ground, to the bit. */
void sim_model_step_terrain(const struct sim_airframe *p, struct sim_state *s,
			    const struct sim_controls *u, const struct sim_env *env,
			    const struct sim_terrain *terrain, double dt_s);

struct sim_trim {
	double alpha_rad;
	double elevator;                   /* normalised */
	double throttle;                   /* 0 .. 1 (given, for a glide) */
	double gamma_rad;                  /* flight-path angle (solved, for a glide) */
	double beta_rad;                   /* sideslip that balances propeller torque */
	double aileron, rudder;            /* normalised */
};

/* Steady wings-level flight in still air at airspeed_m_s. Level: solves alpha,
 * elevator, throttle, and the sideslip, aileron and rudder that balance the
 * propeller's torque. Returns 0, or -ERANGE when the solution needs a
 * throttle outside 0..1 or an angle of attack past the stall, -EDOM when the
 * solver does not converge. */
int sim_trim_level(const struct sim_airframe *p, double density_kg_m3, double airspeed_m_s,
		   struct sim_trim *out);
/* Power-off glide at airspeed_m_s: solves alpha, elevator and flight-path angle. */
int sim_trim_glide(const struct sim_airframe *p, double density_kg_m3, double airspeed_m_s,
		   struct sim_trim *out);

#endif

// SPDX-License-Identifier: GPL-3.0-or-later
#include "model.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "atmos.h"

#define DEG (M_PI / 180.0)

/*
 * Where the default numbers come from:
 * - Mass and geometry: Skywalker 1880/1900 class (1.88 m span, about 0.38 m^2,
 *   mean chord S/b), flown at 2.3 kg with a 3S 4 Ah pack.
 * - Inertia: strip estimates from the mass distribution (wing 0.6 kg over the
 *   span, fuselage and tail over about 1.2 m), same order as the Zagi and
 *   Aerosonde values tabled in Beard and McLain, "Small Unmanned Aircraft" (2012).
 * - Lift slope: Helmbold/DATCOM finite-wing formula 2 pi AR / (2 + sqrt(AR^2 + 4))
 *   for AR = b^2/S = 9.3; stall blending: Beard and McLain eq. 4.9-4.10.
 * - Drag polar: cd0 and Oswald e chosen for a best glide of about 10-11 at
 *   10-11 m/s, the published range for foam motor gliders of this class.
 * - Stability and control derivatives: order of Beard and McLain's Aerosonde
 *   table (appendix E), adjusted for a conventional tail and this geometry
 *   (static margin about 10 %: Cm_alpha = -CL_alpha * 0.1); roll damping from
 *   strip theory, Cl_p = -CL_alpha (1 + 3 taper) / (12 (1 + taper)).
 * - Propeller: C_T(J) and C_Q(J) quadratics of Beard and McLain's updated
 *   propulsion model (2nd-edition supplement, fit to UIUC propeller data), used
 *   at 10 in diameter; motor a 1100 kV, 0.12 ohm outrunner (2216 class).
 * - Battery: typical LiPo open-circuit voltage against state of charge (the
 *   common LiPo voltage chart), 30 mOhm pack resistance.
 * - Ground: foam on grass, friction 0.4 (sliding friction of plastic on dry
 *   grass, 0.3-0.5); spring-damper stiffness for about 1 cm of squash at rest.
 */
void sim_airframe_default(struct sim_airframe *p)
{
	memset(p, 0, sizeof(*p));
	p->name = "skywalker";
	p->hand_launched = true;
	p->mass_kg = 2.3;
	p->jxx_kg_m2 = 0.20;
	p->jyy_kg_m2 = 0.16;
	p->jzz_kg_m2 = 0.34;
	p->jxz_kg_m2 = 0.01;
	p->span_m = 1.88;
	p->wing_area_m2 = 0.38;
	p->chord_m = p->wing_area_m2 / p->span_m;

	double ar = p->span_m * p->span_m / p->wing_area_m2;
	p->lift_alpha = 2.0 * M_PI * ar / (2.0 + sqrt(ar * ar + 4.0));
	p->lift0 = 0.30;
	p->lift_de = -0.13;
	p->alpha_stall_rad = 0.21;
	p->stall_blend = 50.0;
	p->cd0 = 0.040;
	p->oswald_e = 0.60;
	p->cd_flat_plate = 1.8;
	p->side_beta = -0.35;
	p->side_dr = -0.15;

	p->mom.pitch0 = 0.04;
	p->mom.pitch_alpha = -0.1 * p->lift_alpha;
	p->mom.pitch_q = -12.0;
	p->mom.pitch_de = 0.90;
	p->mom.roll_beta = -0.06;
	p->mom.roll_p = -0.50;
	p->mom.roll_r = 0.12;
	p->mom.roll_da = 0.20;
	p->mom.roll_dr = -0.005;
	p->mom.yaw_beta = 0.06;
	p->mom.yaw_p = -0.04;
	p->mom.yaw_r = -0.10;
	p->mom.yaw_da = -0.012;
	p->mom.yaw_dr = 0.05;

	p->aileron_max_rad = 20.0 * DEG;
	p->elevator_max_rad = 25.0 * DEG;
	p->rudder_max_rad = 25.0 * DEG;

	p->prop_diam_m = 0.254;
	p->ct0 = 0.09357;
	p->ct1 = -0.06044;
	p->ct2 = -0.1079;
	p->cq0 = 0.005230;
	p->cq1 = 0.004970;
	p->cq2 = -0.01664;
	p->motor_kv_rpm_v = 1100.0;
	p->motor_r_ohm = 0.12;
	p->motor_i0_a = 0.6;

	p->batt_cells = 3;
	p->batt_capacity_ah = 4.0;
	p->batt_r_ohm = 0.030;

	/* nose, belly, tail skid, wing tips, canopy, fin top */
	p->n_contacts = 7;
	p->contact_body_m[0] = v3_make(0.45, 0.0, 0.08);
	p->contact_body_m[1] = v3_make(-0.25, 0.0, 0.07);
	p->contact_body_m[2] = v3_make(-0.95, 0.0, 0.02);
	p->contact_body_m[3] = v3_make(0.02, 0.94, -0.08);
	p->contact_body_m[4] = v3_make(0.02, -0.94, -0.08);
	p->contact_body_m[5] = v3_make(0.10, 0.0, -0.12);
	p->contact_body_m[6] = v3_make(-0.95, 0.0, -0.25);
	p->ground_k_n_m = 3000.0;
	p->ground_c_n_s_m = 60.0;
	p->ground_mu = 0.4;
	p->ground_mu_dig = 2.0;
	p->nose_over_speed_m_s = 4.0;
	p->crash_speed_m_s = 5.0;
	static const char *const names[SIM_CONTACTS] = { "the nose", "the belly", "the tail skid",
		"the right wing tip", "the left wing tip", "the canopy", "the top of the fin" };
	memcpy(p->contact_name, names, sizeof(names));
}

/*
 * The Cub-like tail-dragger: a 1/4-scale Piper J-3 Cub or a large electric
 * trainer of the same class. Where its numbers come from:
 * - Mass and geometry: 1/4-scale J-3 Cub kits (the full-size Cub's 35 ft 3 in
 *   span and 178.5 sq ft wing at 1/4: 2.69 m, 1.04 m^2; kit data of that size
 *   give 2.67-2.72 m, 1.0-1.06 m^2 and 5.5-7.5 kg flying weight). Here 2.7 m,
 *   1.03 m^2 (mean chord 0.38 m, aspect ratio 7.1), 6.6 kg with a 6S 10 Ah pack.
 * - Inertia: strip estimates as for the other airframe: wing about 1.8 kg over
 *   the span (m b^2 / 12 = 1.1 kg m^2, plus struts and fuselage width: Jxx 1.2),
 *   fuselage, motor, pack and tail over about 1.9 m with the heavy parts
 *   forward (Jyy 0.95), Jzz about Jxx + Jyy for a flat-ish mass distribution.
 *   These are estimates, not measurements: Jxx/(m b^2) = 0.025, about the foam
 *   plane's 0.025 (0.20/(2.3 x 1.88^2)).
 * - Lift: Helmbold/DATCOM slope for AR 7.1 (4.8 per rad); lift0 0.40 for a
 *   cambered USA 35B / Clark Y-like section at a couple of degrees of
 *   incidence; stall blending around 15 degrees, which with the model's
 *   sigmoid gives a CL max of about 1.3 near 12-13 degrees (Clark Y at
 *   Re about 3e5: 1.25-1.35): a power-off stall near 9 m/s at 6.6 kg, as
 *   Cub-class models of this weight are flown (stall 8.5-9.5 m/s).
 * - Drag: cd0 0.045 (struts, exposed wheels, radial-look cowl: above the clean
 *   foam plane's), Oswald e 0.75 for a rectangular wing with struts: best glide
 *   about 9.5 near 11 m/s, a little below the clean foam plane's 10.4, as a
 *   draggy scale model's should be.
 * - Stability and control: static margin 12 % (Cm_alpha = -0.12 CL_alpha);
 *   the long tail arm (about 1.6 m, 4 chords) raises pitch damping (Cm_q -15);
 *   a big rudder (Cn_dr 0.065, 30 degrees) and a high wing with dihedral (Cl_beta
 *   -0.08); strip ailerons on about 40 % of the span (Cl_da 0.20) with 22
 *   degrees of travel and strong adverse yaw (Cn_da -0.018): full aileron
 *   rolls about 90 deg/s at 15 m/s, a trainer's leisurely roll, slower than
 *   the foam plane's 115.
 * - Propeller: an APC-style 19x10 thin electric (0.483 m): C_T(J) and C_P(J)
 *   shaped after the UIUC propeller database's large thin-electric props of
 *   pitch/diameter about 0.5 (static C_T about 0.105, C_P about 0.048, zero
 *   thrust near J = 0.64); C_Q = C_P / 2 pi.
 * - Motor: a 50-size 300 kV outrunner, 25 mOhm, 1.5 A no-load (the class of
 *   5035/5045 motors sold for 2 kW on 6S): at full throttle on a full pack
 *   it draws about 2.4 kW and gives 86 N of static thrust.
 * - Battery: 6S 10 Ah (two 5 Ah packs in parallel), 10 mOhm.
 * - Wheels: main wheels 0.15 m ahead of and 0.38 m below the centre of
 *   gravity, 0.9 m track; a tail wheel 1.55 m behind, placed so that at rest
 *   the aircraft sits 11.5 degrees nose up as a Cub does (11.2 with the
 *   struts loaded). Struts sag about
 *   2 cm under the aircraft's weight, damped at half the critical rate.
 *   Rolling resistance 0.04 (short grass/paved: 0.02-0.05); tyres' side
 *   force saturating at 0.7 of the load at 8 degrees of slip (small rubber
 *   tyres on dry surface); the tail wheel steers 30 degrees with the rudder.
 *   No brakes.
 * - Flow from the side (crossflow in model.h), for an aircraft parked or
 *   rolling across the wind: side-on drag 0.45 of the wing area's (fuselage
 *   and fin side about 0.45 m^2 at a flat plate's drag coefficient of about 1).
 * - Contact points: the propeller's lowest tip, the belly, the tail post,
 *   the wing tips, the top of the wing and the top of the fin. They touch
 *   only in a nose-over, a wing-tip strike or a crash, with the foam plane's
 *   ground friction.
 */
void sim_airframe_cub(struct sim_airframe *p)
{
	memset(p, 0, sizeof(*p));
	p->name = "cub";
	p->hand_launched = false;
	p->mass_kg = 6.6;
	p->jxx_kg_m2 = 1.2;
	p->jyy_kg_m2 = 0.95;
	p->jzz_kg_m2 = 2.0;
	p->jxz_kg_m2 = 0.05;
	p->span_m = 2.7;
	p->wing_area_m2 = 1.03;
	p->chord_m = p->wing_area_m2 / p->span_m;

	double ar = p->span_m * p->span_m / p->wing_area_m2;
	p->lift_alpha = 2.0 * M_PI * ar / (2.0 + sqrt(ar * ar + 4.0));
	p->lift0 = 0.40;
	p->lift_de = -0.15;
	p->alpha_stall_rad = 0.26;
	p->stall_blend = 50.0;
	p->cd0 = 0.045;
	p->oswald_e = 0.75;
	p->cd_flat_plate = 1.8;
	p->side_beta = -0.45;
	p->side_dr = -0.18;
	p->crossflow = true;
	p->side_drag = 0.45;

	p->mom.pitch0 = 0.02;
	p->mom.pitch_alpha = -0.12 * p->lift_alpha;
	p->mom.pitch_q = -15.0;
	p->mom.pitch_de = 1.0;
	p->mom.roll_beta = -0.08;
	p->mom.roll_p = -0.45;
	p->mom.roll_r = 0.15;
	p->mom.roll_da = 0.20;
	p->mom.roll_dr = 0.006;
	p->mom.yaw_beta = 0.07;
	p->mom.yaw_p = -0.05;
	p->mom.yaw_r = -0.12;
	p->mom.yaw_da = -0.018;
	p->mom.yaw_dr = 0.065;

	p->aileron_max_rad = 22.0 * DEG;
	p->elevator_max_rad = 25.0 * DEG;
	p->rudder_max_rad = 30.0 * DEG;

	p->prop_diam_m = 0.483;
	p->ct0 = 0.105;
	p->ct1 = -0.03;
	p->ct2 = -0.20;
	p->cq0 = 0.048 / (2.0 * M_PI);
	p->cq1 = 0.010 / (2.0 * M_PI);
	p->cq2 = -0.075 / (2.0 * M_PI);
	p->motor_kv_rpm_v = 300.0;
	p->motor_r_ohm = 0.025;
	p->motor_i0_a = 1.5;

	p->batt_cells = 6;
	p->batt_capacity_ah = 10.0;
	p->batt_r_ohm = 0.010;

	/* propeller tip, belly, tail post, wing tips, top of the wing, top of the fin */
	p->n_contacts = 7;
	p->contact_body_m[0] = v3_make(0.55, 0.0, 0.20);
	p->contact_body_m[1] = v3_make(-0.30, 0.0, 0.15);
	p->contact_body_m[2] = v3_make(-1.65, 0.0, -0.03);
	p->contact_body_m[3] = v3_make(0.0, 1.35, -0.35);
	p->contact_body_m[4] = v3_make(0.0, -1.35, -0.35);
	p->contact_body_m[5] = v3_make(0.15, 0.0, -0.40);
	p->contact_body_m[6] = v3_make(-1.60, 0.0, -0.45);
	p->ground_k_n_m = 6000.0;
	p->ground_c_n_s_m = 150.0;
	p->ground_mu = 0.4;
	p->ground_mu_dig = 2.0;
	p->nose_over_speed_m_s = 4.0;
	p->crash_speed_m_s = 5.0;
	/* the propeller, a wing tip, the top of the wing or the fin on the
	 * ground: nosed over, a wing-tip strike, on its back */
	p->contact_crash_mask = 1u << 0 | 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6;
	static const char *const names[SIM_CONTACTS] = { "the propeller", "the belly", "the tail post",
		"the right wing tip", "the left wing tip", "the top of the wing", "the top of the fin" };
	memcpy(p->contact_name, names, sizeof(names));

	/* left main, right main, tail wheel (main first, tail last: the rest pitch) */
	p->n_wheels = 3;
	for (int i = 0; i < 2; i++)
		p->wheel[i] = (struct sim_wheel){ v3_make(0.15, i ? 0.45 : -0.45, 0.38), 1400.0, 60.0,
						  0.04, 0.7, 8.0 * DEG, 0.0 };
	double rest = 11.5 * DEG, x_tail = -1.55;
	p->wheel[2] = (struct sim_wheel){ v3_make(x_tail, 0.0, 0.38 - (0.15 - x_tail) * tan(rest)),
					  800.0, 28.0, 0.04, 0.7, 8.0 * DEG, 30.0 * DEG };
}

/*
 * The cub with a free-castering tail wheel, as many small tail-draggers have
 * (and the other simulator's tail-dragger of issue 37): on the ground it is
 * steered by the rudder's air load alone, and the rudder has no slipstream
 * in this model, so below some 4 m/s nothing but the main wheels' friction
 * holds its heading. The swivel's friction gives the tail wheel a side force
 * of at most 0.05 of its load (a castor's swivel on a plain bearing, about a
 * tenth of a tyre's grip), reached at 2 degrees of slip. P-factor: the
 * thrust's line 0.05 m to the right per radian of angle of attack, full from
 * 5 m/s of airspeed: tail down (11.5 degrees) at full power, about 0.8 N m
 * yawing the nose left, what full rudder gives at 3.8 m/s. That figure is an
 * estimate of the right order for a 19-inch propeller, not a measurement.
 * The slipstream: the fin and rudder and about half the elevator sit in the
 * propeller's wake (0.48 m across, some 1.6 m behind it), which at full
 * static thrust (86 N on 0.18 m^2) adds 470 Pa of dynamic pressure at the
 * disc and twice that far behind; the tail feels 0.3 of the disc's, 140 Pa,
 * the free stream's at 15 m/s. So full power and full rudder at a standstill
 * swing the nose at some 6 rad/s^2: with power on, the rudder steers at
 * walking pace, hard.
 */
void sim_airframe_cub_caster(struct sim_airframe *p)
{
	sim_airframe_cub(p);
	p->name = "cub-caster";
	struct sim_wheel *tail = &p->wheel[p->n_wheels - 1];
	tail->steer_max_rad = 0.0;
	tail->mu_side = 0.05;
	tail->slip_sat_rad = 2.0 * DEG;
	p->pfactor_m_rad = 0.05;
	p->slipstream_tail = 0.3;
}

/*
 * The multirotors. Where their numbers come from:
 * - Motor order and spin: ArduCopter's (AP_MotorsMatrix.cpp, setup_motors;
 *   ardupilot.org/copter/docs/connect-escs-and-motors.html). Quad X: 1 front
 *   right CCW, 2 rear left CCW, 3 front left CW, 4 rear right CW. Hexa X, by
 *   the angle clockwise from the nose: 1 at 90 (right) CW, 2 at -90 (left)
 *   CCW, 3 at -30 (front left) CW, 4 at 150 (rear right) CCW, 5 at 30 (front
 *   right) CCW, 6 at -150 (rear left) CW.
 * - Propeller: a 10-inch slow-flyer/multirotor propeller of 4.5-4.7 in
 *   pitch. Static C_T 0.118 and C_P 0.048 (C_Q = C_P / 2 pi) are the
 *   averages of the UIUC Propeller Data Site's static measurements of the
 *   APC 10x4.7 SF over 2400-6500 rpm (volume 1, apcsf_10x4.7_static_kt0835;
 *   APC's 10x4.5 MR, the multirotor version, is not in the database); its
 *   run at 6513 rpm (apcsf_10x4.7_rd0842_6513) gives C_T 0.070 at J = 0.38
 *   and 0.018 at J = 0.60, which ct1 -0.08, ct2 -0.13 meet to within 0.006.
 *   That is k_T = C_T rho D^4 / (4 pi^2) = 1.52e-5 N/(rad/s)^2 and k_Q =
 *   C_Q rho D^5 / (4 pi^2) = 2.51e-7 N m/(rad/s)^2 at sea level (1.44e-5 and
 *   2.37e-7 at the default home's 584 m); the torque-to-thrust ratio,
 *   0.016 m, is that of RotorS's multirotor models (moment constant 0.016 m).
 * - Motor: a 2212-class 920 kV outrunner, 0.5 A no-load; 0.30 ohm is the
 *   winding's (about 0.1) with the ESC's, the wiring's and the connectors'
 *   resistance lumped, chosen so that full throttle on a full 4S pack gives
 *   about 1.2 kg and 19 A a motor: the order of the thrust tables published
 *   for such motors with 10-inch propellers on 4S (an estimate, not a
 *   measurement). Time constant 0.03 s: the mechanical one of a 10-inch
 *   propeller and rotor (about 1.5e-5 kg m^2) on this motor near hover is
 *   J / (k_E^2 / R + 2 k_Q omega) = 0.025 s; PX4's Gazebo Iris and RotorS
 *   use 0.0125 s up and 0.025 s down.
 * - Rotor drag: 1.75e-4 N per (m/s) per (rad/s) across each disc, PX4's
 *   Gazebo Iris's rotorDragCoefficient (1.5 kg, 10-inch propellers); with
 *   the body's drag area (0.04 m^2 from the side: a 450 frame, its battery
 *   and canopy at a drag coefficient of about 1, 0.06 from above) the quad
 *   level at hover meets 5.9 N of drag at 10 m/s (3.5 of it the rotors',
 *   linear in the speed), and holds its place in a 10 m/s wind tilted 23
 *   degrees into it (ArduCopter's ANGLE_MAX is 30 by default).
 * - Inertia: point masses of about 0.08 kg (motor, propeller, ESC) at the
 *   arm's end, the arms as rods and the centre (battery, flight controller,
 *   plates) as a box: Jxx = Jyy 0.012, Jzz 0.022 kg m^2 for the quad (the
 *   Iris, larger, has 0.029 and 0.055); estimates, not measurements.
 * - Rotational damping of the frame: 0.005 N m per rad/s in roll and pitch,
 *   0.003 in yaw, beside what the rotors give (their thrust changes with the
 *   flow along the shaft as the body rolls: about 0.012 N m per rad/s).
 * - Ground: four feet of a landing gear 0.20 m below the centre of gravity,
 *   0.20 m apart fore and aft and 0.24 m across; spring-damper 2000 N/m,
 *   40 N s/m a foot (1.8 mm of squash, damped at 0.7 of the critical rate
 *   for the 1.5 kg); static friction 0.5 (skids on grass; the feet held by
 *   2000 N/m, 40 N s/m along the ground until they slip, so that a wind
 *   does not creep it across the field). Touching down with a sideways
 *   drift, the feet's friction rolls it over its downwind feet: dropped
 *   from 0.3 m at 1 m/s down, motors stopped, it rocks back from 1.5 m/s of
 *   drift and goes over onto its propellers from 2 m/s, a crash
 *   (test_sim_multirotor.c; it also lands one under power at 0.6 and one at
 *   2.7 m/s of drift). The propeller tips (the hub and a propeller's radius
 *   along the arm) and the top touch only when it has gone over.
 * - Battery: 4S 5 Ah (the quad), 20 mOhm.
 */
static struct v3 arm_at(double deg_cw_from_nose, double arm_m, double z_m)
{
	return v3_make(arm_m * cos(deg_cw_from_nose * DEG), arm_m * sin(deg_cw_from_nose * DEG), z_m);
}

/* What the quad and the hexa share: motor, propeller, drag, ground. */
static void multirotor_common(struct sim_airframe *p)
{
	p->hand_launched = false;
	p->prop_diam_m = 0.254;
	p->ct0 = 0.118;
	p->ct1 = -0.08;
	p->ct2 = -0.13;
	p->cq0 = 0.048 / (2.0 * M_PI);
	p->motor_kv_rpm_v = 920.0;
	p->motor_r_ohm = 0.30;
	p->motor_i0_a = 0.5;
	p->motor_tau_s = 0.03;
	p->rotor_drag_n_s_m = 1.75e-4;
	p->batt_cells = 4;
	p->ground_mu = 0.5;
	p->ground_mu_dig = 2.0;
	p->nose_over_speed_m_s = 4.0;
	p->crash_speed_m_s = 5.0;
}

/* Contact points: the four feet, a propeller tip per rotor (the hub and a
 * propeller's radius out along its arm), the top. */
static void multirotor_contacts(struct sim_airframe *p, double foot_x_m, double foot_y_m, double foot_z_m,
				double top_z_m)
{
	static const char *const prop_names[SIM_ROTORS_MAX] = {
		"propeller 1", "propeller 2", "propeller 3", "propeller 4",
		"propeller 5", "propeller 6", "propeller 7", "propeller 8",
	};
	static const char *const foot_names[4] = { "the front right foot", "the front left foot",
		"the rear right foot", "the rear left foot" };
	int n = 0;
	for (int i = 0; i < 4; i++) {
		p->contact_body_m[n] = v3_make(i < 2 ? foot_x_m : -foot_x_m, i % 2 ? -foot_y_m : foot_y_m, foot_z_m);
		p->contact_name[n++] = foot_names[i];
	}
	for (int i = 0; i < p->n_rotors; i++) {
		struct v3 h = p->rotor[i].pos_body_m;
		double r = hypot(h.x, h.y), k = (r + 0.5 * p->prop_diam_m) / r;
		p->contact_body_m[n] = v3_make(h.x * k, h.y * k, h.z);
		p->contact_crash_mask |= 1u << n;
		p->contact_name[n++] = prop_names[i];
	}
	assert(n < SIM_CONTACTS);
	p->contact_body_m[n] = v3_make(0.0, 0.0, top_z_m);
	p->contact_crash_mask |= 1u << n;
	p->contact_name[n++] = "the top";
	p->n_contacts = n;
}

void sim_airframe_quad(struct sim_airframe *p)
{
	memset(p, 0, sizeof(*p));
	p->name = "quad";
	multirotor_common(p);
	p->mass_kg = 1.5;
	p->jxx_kg_m2 = 0.012;
	p->jyy_kg_m2 = 0.012;
	p->jzz_kg_m2 = 0.022;
	/* 450 mm between opposite motors; the propellers 3 cm above the centre of gravity */
	p->n_rotors = 4;
	p->rotor[0] = (struct sim_rotor){ arm_at(45.0, 0.225, -0.03), true };
	p->rotor[1] = (struct sim_rotor){ arm_at(-135.0, 0.225, -0.03), true };
	p->rotor[2] = (struct sim_rotor){ arm_at(-45.0, 0.225, -0.03), false };
	p->rotor[3] = (struct sim_rotor){ arm_at(135.0, 0.225, -0.03), false };
	p->body_cda_m2 = v3_make(0.04, 0.04, 0.06);
	p->rot_damp_nm_s = v3_make(0.005, 0.005, 0.003);
	p->batt_capacity_ah = 5.0;
	p->batt_r_ohm = 0.020;
	p->ground_k_n_m = 2000.0;
	p->ground_c_n_s_m = 40.0;
	p->ground_kt_n_m = 2000.0;
	p->ground_ct_n_s_m = 40.0;
	multirotor_contacts(p, 0.10, 0.12, 0.20, -0.10);
}

/*
 * The hexa X: 550 mm between opposite motors (arms 0.275 m, so 0.275 m
 * between neighbours: room for the same 10-inch propellers), 2.0 kg with a
 * 4S 6 Ah pack (15 mOhm), the quad's motors and propellers. Inertia as for
 * the quad: six 0.1 kg motor ends at 0.275 m give Jzz 0.045 and Jxx = Jyy
 * 0.023, with arms and centre 0.027, 0.027, 0.053 kg m^2. Body drag area
 * 0.05 m^2 from the side, 0.08 from above; feet 0.22 m below the centre of
 * gravity, 0.24 m apart fore and aft and 0.28 m across (it goes over from
 * the quad's 2 m/s of drift too); 2500 N/m and 50 N s/m a foot.
 */
void sim_airframe_hexa(struct sim_airframe *p)
{
	memset(p, 0, sizeof(*p));
	p->name = "hexa";
	multirotor_common(p);
	p->mass_kg = 2.0;
	p->jxx_kg_m2 = 0.027;
	p->jyy_kg_m2 = 0.027;
	p->jzz_kg_m2 = 0.053;
	p->n_rotors = 6;
	p->rotor[0] = (struct sim_rotor){ arm_at(90.0, 0.275, -0.04), false };
	p->rotor[1] = (struct sim_rotor){ arm_at(-90.0, 0.275, -0.04), true };
	p->rotor[2] = (struct sim_rotor){ arm_at(-30.0, 0.275, -0.04), false };
	p->rotor[3] = (struct sim_rotor){ arm_at(150.0, 0.275, -0.04), true };
	p->rotor[4] = (struct sim_rotor){ arm_at(30.0, 0.275, -0.04), true };
	p->rotor[5] = (struct sim_rotor){ arm_at(-150.0, 0.275, -0.04), false };
	p->body_cda_m2 = v3_make(0.05, 0.05, 0.08);
	p->rot_damp_nm_s = v3_make(0.008, 0.008, 0.005);
	p->batt_capacity_ah = 6.0;
	p->batt_r_ohm = 0.015;
	p->ground_k_n_m = 2500.0;
	p->ground_c_n_s_m = 50.0;
	p->ground_kt_n_m = 2500.0;
	p->ground_ct_n_s_m = 50.0;
	multirotor_contacts(p, 0.12, 0.14, 0.22, -0.11);
}

int sim_airframe_by_name(const char *name, struct sim_airframe *p)
{
	if (!name)
		return -ENOENT;
	if (strcmp(name, "skywalker") == 0)
		sim_airframe_default(p);
	else if (strcmp(name, "cub") == 0)
		sim_airframe_cub(p);
	else if (strcmp(name, "cub-caster") == 0)
		sim_airframe_cub_caster(p);
	else if (strcmp(name, "quad") == 0)
		sim_airframe_quad(p);
	else if (strcmp(name, "hexa") == 0)
		sim_airframe_hexa(p);
	else
		return -ENOENT;
	return 0;
}

const char *sim_airframe_names(void)
{
	return "skywalker, cub, cub-caster, quad, hexa";
}

double sim_airframe_rest_pitch_rad(const struct sim_airframe *p)
{
	if (p->n_wheels < 2)
		return 0.0;
	struct v3 m = p->wheel[0].pos_body_m, t = p->wheel[p->n_wheels - 1].pos_body_m;
	return atan2(m.z - t.z, m.x - t.x);
}

/* Open-circuit volts per cell at 0 %, 10 %, ... 100 % charge. */
static const double lipo_ocv[11] = { 3.30, 3.68, 3.73, 3.77, 3.80, 3.84,
				     3.88, 3.95, 4.02, 4.10, 4.20 };

double sim_batt_ocv_v(const struct sim_airframe *p, double used_ah)
{
	double soc = 1.0 - used_ah / p->batt_capacity_ah;
	if (soc < 0.0)
		soc = 0.0;
	if (soc > 1.0)
		soc = 1.0;
	double x = soc * 10.0;
	int i = (int)x;
	if (i >= 10)
		i = 9;
	double f = x - i;
	return p->batt_cells * (lipo_ocv[i] + f * (lipo_ocv[i + 1] - lipo_ocv[i]));
}

void sim_state_init(const struct sim_airframe *p, struct sim_state *s)
{
	memset(s, 0, sizeof(*s));
	s->crash_contact = -1;
	s->att = quat_identity();
	s->batt_voltage_v = sim_batt_ocv_v(p, 0.0);
	if (p->n_wheels > 0) {
		/* On the wheels at the rest pitch, the main wheels just touching. */
		s->att = quat_from_euler(0.0, sim_airframe_rest_pitch_rad(p), 0.0);
		s->pos_ned_m.z = -quat_rotate(s->att, p->wheel[0].pos_body_m).z;
		return;
	}
	/* Resting on the belly contact points. */
	s->pos_ned_m.z = -p->contact_body_m[0].z - p->mass_kg * SIM_G0_M_S2 / (2.0 * p->ground_k_n_m);
}

void sim_state_hand_launch(const struct sim_airframe *p, struct sim_state *s, double speed_m_s,
			   double pitch_deg, double heading_deg, double height_m)
{
	sim_state_init(p, s);
	double th = pitch_deg * DEG, psi = heading_deg * DEG;
	s->pos_ned_m = v3_make(0.0, 0.0, -height_m);
	s->vel_ned_m_s = v3_make(speed_m_s * cos(th) * cos(psi), speed_m_s * cos(th) * sin(psi),
				 -speed_m_s * sin(th));
	s->att = quat_from_euler(0.0, th, psi);
}

double sim_lift_coef(const struct sim_airframe *p, double a)
{
	/* Beard and McLain eq. 4.9-4.10: sigma goes from 0 below the stall to 1 past it. */
	double m = p->stall_blend, a0 = p->alpha_stall_rad;
	double e1 = exp(-m * (a - a0)), e2 = exp(m * (a + a0));
	double sigma;
	if (!isfinite(e1) || !isfinite(e2))
		sigma = 1.0;
	else
		sigma = (1.0 + e1 + e2) / ((1.0 + e1) * (1.0 + e2));
	double flat = 2.0 * (a >= 0.0 ? 1.0 : -1.0) * sin(a) * sin(a) * cos(a);
	return (1.0 - sigma) * (p->lift0 + p->lift_alpha * a) + sigma * flat;
}

static double stall_sigma(const struct sim_airframe *p, double a)
{
	double m = p->stall_blend, a0 = p->alpha_stall_rad;
	double e1 = exp(-m * (a - a0)), e2 = exp(m * (a + a0));
	if (!isfinite(e1) || !isfinite(e2))
		return 1.0;
	return (1.0 + e1 + e2) / ((1.0 + e1) * (1.0 + e2));
}

static double clamp(double x, double lo, double hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/* Beard and McLain's motor/propeller balance: motor torque equals propeller
 * torque, a quadratic in Omega. Returns thrust; writes speed and motor current. */
static double propulsion(const struct sim_airframe *p, double rho, double va, double v_in,
			 double *omega_out, double *i_motor_out)
{
	*omega_out = 0.0;
	*i_motor_out = 0.0;
	if (v_in <= 0.0)
		return 0.0;   /* ESC off: the propeller folds */
	double d = p->prop_diam_m, d3 = d * d * d, d4 = d3 * d, d5 = d4 * d;  /* no pow(): 4 times a step */
	double kv = 60.0 / (2.0 * M_PI * p->motor_kv_rpm_v);  /* V s / rad; K_Q = K_V in SI */
	double r = p->motor_r_ohm;
	double a = rho * d5 * p->cq0 / (4.0 * M_PI * M_PI);
	double b = rho * d4 * p->cq1 * va / (2.0 * M_PI) + kv * kv / r;
	double c = rho * d3 * p->cq2 * va * va - kv * v_in / r + kv * p->motor_i0_a;
	double disc = b * b - 4.0 * a * c;
	if (disc < 0.0)
		return 0.0;
	double om = (-b + sqrt(disc)) / (2.0 * a);
	if (om <= 0.0)
		return 0.0;
	double t = rho * d4 * p->ct0 * om * om / (4.0 * M_PI * M_PI) +
		   rho * d3 * p->ct1 * va * om / (2.0 * M_PI) + rho * d * d * p->ct2 * va * va;
	*omega_out = om;
	*i_motor_out = (v_in - kv * om) / r;
	return t > 0.0 ? t : 0.0;
}

/* A multirotor in the air (struct sim_airframe, n_rotors): each rotor's
 * thrust along body -z at its hub, at the advance ratio of the flow along its
 * shaft (a climb into it lowers the thrust, a descent raises it: that damps
 * a climb or sink, and a roll or pitch rate, which moves the rotors along
 * their shafts); its drag against the flow across its disc; its reaction
 * torque. Then the body's drag and the frame's rotational damping. Each
 * motor's current at its present speed (spinning up it draws more than it
 * will hold) gives the battery's through its ESC's duty cycle. */
static void rotor_aero(const struct sim_airframe *p, const struct sim_state *s,
		       const struct sim_env *env, struct sim_forces *f)
{
	struct v3 vb = quat_rotate_inv(s->att, v3_sub(s->vel_ned_m_s, env->wind_ned_m_s));
	double va = v3_norm(vb);
	f->airspeed_m_s = va;
	f->alpha_rad = atan2(vb.z, vb.x);
	f->beta_rad = va > 1e-9 ? asin(clamp(vb.y / va, -1.0, 1.0)) : 0.0;

	double rho = env->density_kg_m3, d = p->prop_diam_m;
	double d4 = d * d * d * d, d5 = d4 * d;
	double ke = 60.0 / (2.0 * M_PI * p->motor_kv_rpm_v);
	struct v3 w = s->rate_body_rad_s;
	struct v3 force = v3_make(0.0, 0.0, 0.0), moment = v3_make(0.0, 0.0, 0.0);
	double speed_sum = 0.0;
	for (int i = 0; i < p->n_rotors; i++) {
		const struct sim_rotor *r = &p->rotor[i];
		double om = s->motor_rad_s[i], n = om / (2.0 * M_PI);
		speed_sum += om;
		struct v3 vh = v3_add(vb, v3_cross(w, r->pos_body_m));   /* the hub through the air */
		double t = 0.0, q = 0.0;
		if (n > 1e-3) {
			/* Held to the range the coefficients were fitted over. */
			double j = clamp(-vh.z / (n * d), -0.3, 0.6);
			double ct = p->ct0 + j * (p->ct1 + j * p->ct2);
			t = rho * n * n * d4 * (ct > 0.0 ? ct : 0.0);
			q = rho * n * n * d5 * p->cq0;
		}
		struct v3 fr = v3_make(-p->rotor_drag_n_s_m * om * vh.x, -p->rotor_drag_n_s_m * om * vh.y, -t);
		force = v3_add(force, fr);
		moment = v3_add(moment, v3_cross(r->pos_body_m, fr));
		moment.z += r->ccw ? q : -q;
		f->thrust_n += t;
		/* No current flows back: the ESC does not brake the motor. */
		double duty = clamp(s->esc_out[i], 0.0, 1.0);
		double im = duty > 0.0 ? (duty * s->batt_voltage_v - ke * om) / p->motor_r_ohm : 0.0;
		if (im < 0.0)
			im = 0.0;
		f->motor_current_a += im;
		f->batt_current_a += duty * im;
	}
	f->prop_rad_s = speed_sum / p->n_rotors;
	struct v3 c = p->body_cda_m2;
	double k = -0.5 * rho * va;
	force = v3_add(force, v3_make(k * c.x * vb.x, k * c.y * vb.y, k * c.z * vb.z));
	struct v3 dmp = p->rot_damp_nm_s;
	moment = v3_sub(moment, v3_make(dmp.x * w.x, dmp.y * w.y, dmp.z * w.z));
	f->force_body_n = force;
	f->moment_body_nm = moment;
}

void sim_rotors_set(const struct sim_airframe *p, struct sim_state *s, const double out[SIM_ROTORS_MAX])
{
	for (int i = 0; i < p->n_rotors; i++)
		s->esc_out[i] = isfinite(out[i]) ? clamp(out[i], 0.0, 1.0) : 0.0;
}

double sim_rotor_steady_rad_s(const struct sim_airframe *p, double rho, double v_in, double *current_a)
{
	/* The motor's torque k_E (I - I0), I = (v_in - k_E omega) / R, against
	 * the propeller's k_Q omega^2: a quadratic in omega, as propulsion()'s. */
	double d = p->prop_diam_m, d5 = d * d * d * d * d;
	double ke = 60.0 / (2.0 * M_PI * p->motor_kv_rpm_v), r = p->motor_r_ohm;
	double a = rho * d5 * p->cq0 / (4.0 * M_PI * M_PI);
	double b = ke * ke / r;
	double c = ke * p->motor_i0_a - ke * v_in / r;
	double om = 0.0;
	if (c < 0.0 && a > 0.0)
		om = (-b + sqrt(b * b - 4.0 * a * c)) / (2.0 * a);
	if (current_a)
		*current_a = om > 0.0 ? (v_in - ke * om) / r : 0.0;
	return om;
}

/* Each motor's speed over dt_s towards the speed its output holds at the
 * pack's present voltage: a first-order lag, exact for a held target. */
static void spin_motors(const struct sim_airframe *p, struct sim_state *s, double rho, double dt_s)
{
	double a = p->motor_tau_s > 0.0 ? exp(-dt_s / p->motor_tau_s) : 0.0;
	for (int i = 0; i < p->n_rotors; i++) {
		double target = sim_rotor_steady_rad_s(p, rho, clamp(s->esc_out[i], 0.0, 1.0) * s->batt_voltage_v, NULL);
		s->motor_rad_s[i] = target + (s->motor_rad_s[i] - target) * a;
	}
}

static void aero(const struct sim_airframe *p, const struct sim_state *s,
		 const struct sim_controls *u, const struct sim_env *env, struct sim_forces *f)
{
	if (p->n_rotors > 0) {
		rotor_aero(p, s, env, f);
		return;
	}
	struct v3 vb = quat_rotate_inv(s->att, v3_sub(s->vel_ned_m_s, env->wind_ned_m_s));
	double va = v3_norm(vb);
	f->airspeed_m_s = va;
	f->alpha_rad = atan2(vb.z, vb.x);
	f->beta_rad = va > 1e-9 ? asin(clamp(vb.y / va, -1.0, 1.0)) : 0.0;

	double da = clamp(u->aileron, -1, 1) * p->aileron_max_rad;
	double de = clamp(u->elevator, -1, 1) * p->elevator_max_rad;
	double dr = clamp(u->rudder, -1, 1) * p->rudder_max_rad;

	/* Propeller on the body x axis through the centre of gravity. */
	double v_in = clamp(u->throttle, 0, 1) * s->batt_voltage_v;
	double om, im;
	double thrust = propulsion(p, env->density_kg_m3, vb.x > 0.0 ? vb.x : 0.0, v_in, &om, &im);
	f->thrust_n = thrust;
	f->prop_rad_s = om;
	f->motor_current_a = im;
	f->batt_current_a = clamp(u->throttle, 0, 1) * im;
	f->force_body_n = v3_make(thrust, 0, 0);
	/* Reaction to the propeller torque rolls the airframe against its spin. */
	double kq = 60.0 / (2.0 * M_PI * p->motor_kv_rpm_v);
	f->moment_body_nm = v3_make(-kq * (im > p->motor_i0_a ? im - p->motor_i0_a : 0.0), 0, 0);
	/* The slipstream's part of the elevator's and rudder's moments (struct
	 * sim_airframe); the free stream's follow with the rest. */
	if (p->slipstream_tail > 0.0 && thrust > 0.0) {
		double q_slip = p->slipstream_tail * thrust / (M_PI * 0.25 * p->prop_diam_m * p->prop_diam_m);
		double qs = q_slip * p->wing_area_m2;
		const struct sim_moment_coefs *mc = &p->mom;
		f->moment_body_nm = v3_add(f->moment_body_nm,
					   v3_make(qs * p->span_m * mc->roll_dr * dr, qs * p->chord_m * mc->pitch_de * de,
						   qs * p->span_m * mc->yaw_dr * dr));
		f->force_body_n.y += qs * p->side_dr * dr;
	}
	/* P-factor (struct sim_airframe): none in still air, full from 5 m/s. */
	if (p->pfactor_m_rad != 0.0 && va > 1e-6) {
		double aoa = clamp(atan2(vb.z, vb.x), -0.35, 0.35);
		f->moment_body_nm.z -= thrust * p->pfactor_m_rad * aoa * clamp(va / 5.0, 0.0, 1.0);
	}

	if (p->aero_off || va < 1e-6)
		return;

	double a = f->alpha_rad, b = f->beta_rad;
	double qbar_s = 0.5 * env->density_kg_m3 * va * va * p->wing_area_m2;
	double ar = p->span_m * p->span_m / p->wing_area_m2;
	double sig = stall_sigma(p, a);
	double cl_lin = p->lift0 + p->lift_alpha * a;
	double cl = sim_lift_coef(p, a) + p->lift_de * de;
	double cd = (1.0 - sig) * (p->cd0 + cl_lin * cl_lin / (M_PI * p->oswald_e * ar)) +
		    sig * (p->cd0 + p->cd_flat_plate * sin(a) * sin(a));
	double cy = p->side_beta * b + p->side_dr * dr;
	/* The cross-flow model's factors (crossflow in model.h); the plain one's are 1 and b. */
	double kx = 1.0, kb = b;
	if (p->crossflow) {
		kx = (vb.x * vb.x + vb.z * vb.z) / (va * va);
		kb = sin(b);
		cl *= kx;
		cd = kx * cd + (1.0 - kx) * p->side_drag;
		cy = p->side_beta * sin(b) * cos(b) + p->side_dr * dr;
	}

	/* Drag against the relative wind, lift perpendicular to it in the body
	 * x-z plane, side force perpendicular to both: lift and side force do no work. */
	struct v3 vhat = v3_scale(vb, 1.0 / va);
	struct v3 lhat = v3_cross(v3_make(0, 1, 0), vhat);
	double ln = v3_norm(lhat);
	lhat = ln > 1e-6 ? v3_scale(lhat, 1.0 / ln) : v3_make(0, 0, -1);
	struct v3 shat = v3_cross(vhat, lhat);
	struct v3 fa = v3_add(v3_add(v3_scale(vhat, -cd), v3_scale(lhat, cl)), v3_scale(shat, cy));
	f->force_body_n = v3_madd(f->force_body_n, fa, qbar_s);

	/* Rate terms use at least 1 m/s so that a plane at rest has finite ones;
	 * qbar makes them vanish there anyway. */
	double vr = va > 1.0 ? va : 1.0;
	const struct sim_moment_coefs *m = &p->mom;
	struct v3 w = s->rate_body_rad_s;
	double pb = w.x * p->span_m / (2.0 * vr), qc = w.y * p->chord_m / (2.0 * vr),
	       rb = w.z * p->span_m / (2.0 * vr);
	double croll, cpitch, cyaw;
	if (!p->crossflow) {
		croll = m->roll_beta * b + m->roll_p * pb + m->roll_r * rb + m->roll_da * da + m->roll_dr * dr;
		cpitch = m->pitch0 + m->pitch_alpha * a + m->pitch_q * qc + m->pitch_de * de;
		cyaw = m->yaw_beta * b + m->yaw_p * pb + m->yaw_r * rb + m->yaw_da * da + m->yaw_dr * dr;
	} else {
		croll = m->roll_beta * kb + m->roll_p * pb + m->roll_r * rb + m->roll_da * da + m->roll_dr * dr;
		cpitch = kx * (m->pitch0 + m->pitch_alpha * a + m->pitch_de * de) + m->pitch_q * qc;
		cyaw = m->yaw_beta * kb + m->yaw_p * pb + m->yaw_r * rb + m->yaw_da * da + m->yaw_dr * dr;
	}
	f->moment_body_nm = v3_add(f->moment_body_nm,
				   v3_make(qbar_s * p->span_m * croll, qbar_s * p->chord_m * cpitch,
					   qbar_s * p->span_m * cyaw));
}

/* How far point pt (NED) is into the ground, and how fast it sinks into it.
 * Flat ground (terrain NULL) is z = 0, as it always was, to the bit. On a
 * field the ground is at z = -height; the reaction stays vertical and the
 * friction horizontal (fine for the few degrees of a field's slope: the
 * error is the slope's cosine), and the damper works on the rate the point
 * goes into the surface, so that rolling along a slope is not braked. */
static double ground_depth(const struct sim_terrain *terrain, struct v3 pt)
{
	if (!terrain)
		return pt.z;
	return pt.z + sim_terrain_height_m(terrain, pt.x, pt.y);
}

static double ground_sink(const struct sim_terrain *terrain, struct v3 pt, struct v3 vn)
{
	if (!terrain)
		return vn.z;
	double gn, ge;
	sim_terrain_gradient(terrain, pt.x, pt.y, &gn, &ge);
	return vn.z + gn * vn.x + ge * vn.y;
}

/* A wheel's strut and tyre (struct sim_wheel). The strut pushes along the
 * vertical as the contact points do; rolling resistance and the side force
 * act in the ground plane along and across the wheel's heading there. */
static void wheel_force(const struct sim_wheel *wh, const struct sim_state *s, double rudder,
			const struct sim_terrain *terrain, struct sim_forces *f)
{
	struct v3 rb = wh->pos_body_m;
	struct v3 pt = v3_add(s->pos_ned_m, quat_rotate(s->att, rb));
	double depth = ground_depth(terrain, pt);
	if (depth <= 0.0)
		return;
	struct v3 vn = v3_add(s->vel_ned_m_s, quat_rotate(s->att, v3_cross(s->rate_body_rad_s, rb)));
	double sink = ground_sink(terrain, pt, vn);
	double n = wh->k_n_m * depth + wh->c_n_s_m * sink;
	if (n < 0.0)
		n = 0.0;
	if (sink > f->sink_speed_max_m_s)
		f->sink_speed_max_m_s = sink;
	f->on_ground = true;
	/* Right rudder turns the wheel's front left of the nose: the tail goes
	 * left and the nose right. */
	double steer = -clamp(rudder, -1.0, 1.0) * wh->steer_max_rad;
	struct v3 dn = quat_rotate(s->att, v3_make(cos(steer), sin(steer), 0.0));
	double dl = sqrt(dn.x * dn.x + dn.y * dn.y);
	double fx = 0.0, fy = 0.0;
	if (dl > 1e-3) {
		double hx = dn.x / dl, hy = dn.y / dl;     /* heading in the ground plane */
		double v_long = vn.x * hx + vn.y * hy, v_lat = -vn.x * hy + vn.y * hx;
		/* Rolling resistance, regularised below 5 cm/s as the contact
		 * points' friction is; the slip angle, regularised below 0.2 m/s so
		 * that a wheel at rest has a finite, smooth one. */
		double f_long = -wh->mu_roll * n * v_long / (fabs(v_long) > 0.05 ? fabs(v_long) : 0.05);
		double slip = atan2(v_lat, fabs(v_long) + 0.2);
		double f_lat = -wh->mu_side * n * clamp(slip / wh->slip_sat_rad, -1.0, 1.0);
		fx = f_long * hx - f_lat * hy;
		fy = f_long * hy + f_lat * hx;
	}
	struct v3 fb = quat_rotate_inv(s->att, v3_make(fx, fy, -n));
	f->force_body_n = v3_add(f->force_body_n, fb);
	f->moment_body_nm = v3_add(f->moment_body_nm, v3_cross(rb, fb));
}

/* Static friction (ground_kt_n_m in model.h): point i, touching at pt_ned
 * with velocity vn under load n, pulled back towards its anchor, up to mu n.
 * A point not yet anchored (it touched during this step) has only the damper. */
static struct v3 held_friction(const struct sim_airframe *p, const struct sim_state *s, int i,
			       struct v3 pt_ned, struct v3 vn, double n, double mu)
{
	double dx = 0.0, dy = 0.0;
	if (s->anchored[i]) {
		dx = pt_ned.x - s->anchor_ned_m[i].x;
		dy = pt_ned.y - s->anchor_ned_m[i].y;
	}
	double fx = -p->ground_kt_n_m * dx - p->ground_ct_n_s_m * vn.x;
	double fy = -p->ground_kt_n_m * dy - p->ground_ct_n_s_m * vn.y;
	double f = sqrt(fx * fx + fy * fy), lim = mu * n;
	if (f > lim) {
		fx *= lim / f;
		fy *= lim / f;
	}
	return v3_make(fx, fy, -n);
}

/* After a step: a point that has touched is anchored where it is; one whose
 * spring pulls harder than mu times its load slides, its anchor dragged
 * along to the spring's reach; one in the air lets go. */
static void move_anchors(const struct sim_airframe *p, struct sim_state *s,
			 const struct sim_terrain *terrain)
{
	for (int i = 0; i < p->n_contacts; i++) {
		struct v3 rb = p->contact_body_m[i];
		struct v3 pt = v3_add(s->pos_ned_m, quat_rotate(s->att, rb));
		double depth = ground_depth(terrain, pt);
		if (depth <= 0.0) {
			s->anchored[i] = false;
			continue;
		}
		if (!s->anchored[i]) {
			s->anchored[i] = true;
			s->anchor_ned_m[i] = pt;
			continue;
		}
		struct v3 vn = v3_add(s->vel_ned_m_s, quat_rotate(s->att, v3_cross(s->rate_body_rad_s, rb)));
		double n = p->ground_k_n_m * depth + p->ground_c_n_s_m * ground_sink(terrain, pt, vn);
		double mu = s->dig[i] ? p->ground_mu_dig : p->ground_mu;
		double reach = (n > 0.0 ? mu * n : 0.0) / p->ground_kt_n_m;
		double dx = pt.x - s->anchor_ned_m[i].x, dy = pt.y - s->anchor_ned_m[i].y;
		double d = sqrt(dx * dx + dy * dy);
		if (d > reach) {
			s->anchor_ned_m[i].x = pt.x - dx * reach / d;
			s->anchor_ned_m[i].y = pt.y - dy * reach / d;
		}
	}
}

static void ground(const struct sim_airframe *p, const struct sim_state *s,
		   const struct sim_controls *u, const struct sim_terrain *terrain, struct sim_forces *f)
{
	f->on_ground = false;
	f->sink_speed_max_m_s = 0.0;
	for (int i = 0; i < p->n_contacts; i++) {
		struct v3 rb = p->contact_body_m[i];
		struct v3 rn = quat_rotate(s->att, rb);
		double depth = ground_depth(terrain, v3_add(s->pos_ned_m, rn));
		if (depth <= 0.0)
			continue;
		struct v3 vn = v3_add(s->vel_ned_m_s, quat_rotate(s->att, v3_cross(s->rate_body_rad_s, rb)));
		double sink = ground_sink(terrain, v3_add(s->pos_ned_m, rn), vn);
		double n = p->ground_k_n_m * depth + p->ground_c_n_s_m * sink;
		if (n < 0.0)
			n = 0.0;     /* the ground pushes, never pulls */
		if (sink > f->sink_speed_max_m_s)
			f->sink_speed_max_m_s = sink;
		f->on_ground = true;
		double mu = s->dig[i] ? p->ground_mu_dig : p->ground_mu;
		struct v3 fn;
		if (p->ground_kt_n_m > 0.0) {
			fn = held_friction(p, s, i, v3_add(s->pos_ned_m, rn), vn, n, mu);
		} else {
			/* Coulomb friction, regularised below 5 cm/s so that the model stays
			 * smooth; with no sideways force a resting plane does not creep. */
			double vt = sqrt(vn.x * vn.x + vn.y * vn.y);
			double k = mu * n / (vt > 0.05 ? vt : 0.05);
			fn = v3_make(-k * vn.x, -k * vn.y, -n);
		}
		struct v3 fb = quat_rotate_inv(s->att, fn);
		f->force_body_n = v3_add(f->force_body_n, fb);
		f->moment_body_nm = v3_add(f->moment_body_nm, v3_cross(rb, fb));
	}
	for (int i = 0; i < p->n_wheels; i++)
		wheel_force(&p->wheel[i], s, u->rudder, terrain, f);
}

static void forces_eval(const struct sim_airframe *p, const struct sim_state *s,
			const struct sim_controls *u, const struct sim_env *env,
			const struct sim_terrain *terrain, struct sim_forces *out)
{
	memset(out, 0, sizeof(*out));
	aero(p, s, u, env, out);
	ground(p, s, u, terrain, out);
}

void sim_forces_eval(const struct sim_airframe *p, const struct sim_state *s,
		     const struct sim_controls *u, const struct sim_env *env, struct sim_forces *out)
{
	forces_eval(p, s, u, env, NULL, out);
}

struct body_deriv {
	struct v3 dpos, dvel;
	struct quat datt;
	struct v3 drate;
};

static void derivative(const struct sim_airframe *p, const struct sim_state *s,
		       const struct sim_controls *u, const struct sim_env *env,
		       const struct sim_terrain *terrain, struct body_deriv *d)
{
	struct sim_forces f;
	forces_eval(p, s, u, env, terrain, &f);
	d->dpos = s->vel_ned_m_s;
	d->dvel = v3_add(quat_rotate(s->att, v3_scale(f.force_body_n, 1.0 / p->mass_kg)),
			 v3_make(0, 0, SIM_G0_M_S2));
	struct quat wq = { 0.0, s->rate_body_rad_s.x, s->rate_body_rad_s.y, s->rate_body_rad_s.z };
	struct quat qd = quat_mul(s->att, wq);
	d->datt = (struct quat){ 0.5 * qd.w, 0.5 * qd.x, 0.5 * qd.y, 0.5 * qd.z };
	/* Euler's equations with the x-z product of inertia (symmetric airframe). */
	struct v3 w = s->rate_body_rad_s;
	double jx = p->jxx_kg_m2, jy = p->jyy_kg_m2, jz = p->jzz_kg_m2, jxz = p->jxz_kg_m2;
	struct v3 h = v3_make(jx * w.x - jxz * w.z, jy * w.y, jz * w.z - jxz * w.x);
	struct v3 rhs = v3_sub(f.moment_body_nm, v3_cross(w, h));
	double det = jx * jz - jxz * jxz;
	d->drate = v3_make((jz * rhs.x + jxz * rhs.z) / det, rhs.y / jy, (jxz * rhs.x + jx * rhs.z) / det);
}

static struct sim_state advance(const struct sim_state *s, const struct body_deriv *d, double h)
{
	struct sim_state r = *s;
	r.pos_ned_m = v3_madd(s->pos_ned_m, d->dpos, h);
	r.vel_ned_m_s = v3_madd(s->vel_ned_m_s, d->dvel, h);
	r.att = (struct quat){ s->att.w + h * d->datt.w, s->att.x + h * d->datt.x,
			       s->att.y + h * d->datt.y, s->att.z + h * d->datt.z };
	r.rate_body_rad_s = v3_madd(s->rate_body_rad_s, d->drate, h);
	return r;
}

void sim_model_step(const struct sim_airframe *p, struct sim_state *s,
		    const struct sim_controls *u, const struct sim_env *env, double dt_s)
{
	sim_model_step_terrain(p, s, u, env, NULL, dt_s);
}

void sim_model_step_terrain(const struct sim_airframe *p, struct sim_state *s,
			    const struct sim_controls *u, const struct sim_env *env,
			    const struct sim_terrain *terrain, double dt_s)
{
	if (p->n_rotors > 0)
		spin_motors(p, s, env->density_kg_m3, dt_s);
	struct body_deriv k1, k2, k3, k4;
	derivative(p, s, u, env, terrain, &k1);
	struct sim_state s2 = advance(s, &k1, 0.5 * dt_s);
	derivative(p, &s2, u, env, terrain, &k2);
	struct sim_state s3 = advance(s, &k2, 0.5 * dt_s);
	derivative(p, &s3, u, env, terrain, &k3);
	struct sim_state s4 = advance(s, &k3, dt_s);
	derivative(p, &s4, u, env, terrain, &k4);

	double h6 = dt_s / 6.0;
	s->pos_ned_m = v3_madd(s->pos_ned_m,
			       v3_add(v3_add(k1.dpos, v3_scale(k2.dpos, 2)), v3_add(v3_scale(k3.dpos, 2), k4.dpos)), h6);
	s->vel_ned_m_s = v3_madd(s->vel_ned_m_s,
				 v3_add(v3_add(k1.dvel, v3_scale(k2.dvel, 2)), v3_add(v3_scale(k3.dvel, 2), k4.dvel)), h6);
	s->rate_body_rad_s = v3_madd(s->rate_body_rad_s,
				     v3_add(v3_add(k1.drate, v3_scale(k2.drate, 2)), v3_add(v3_scale(k3.drate, 2), k4.drate)), h6);
	s->att.w += h6 * (k1.datt.w + 2 * k2.datt.w + 2 * k3.datt.w + k4.datt.w);
	s->att.x += h6 * (k1.datt.x + 2 * k2.datt.x + 2 * k3.datt.x + k4.datt.x);
	s->att.y += h6 * (k1.datt.y + 2 * k2.datt.y + 2 * k3.datt.y + k4.datt.y);
	s->att.z += h6 * (k1.datt.z + 2 * k2.datt.z + 2 * k3.datt.z + k4.datt.z);
	s->att = quat_normalize(s->att);
	s->t_s += dt_s;

	/* Outputs at the end of the step; the battery follows the current drawn. */
	struct sim_forces f;
	forces_eval(p, s, u, env, terrain, &f);
	s->accel_body_m_s2 = v3_scale(f.force_body_n, 1.0 / p->mass_kg);
	s->airspeed_m_s = f.airspeed_m_s;
	s->alpha_rad = f.alpha_rad;
	s->beta_rad = f.beta_rad;
	s->thrust_n = f.thrust_n;
	s->prop_rad_s = f.prop_rad_s;
	s->on_ground = f.on_ground;
	s->batt_current_a = f.batt_current_a;
	s->batt_used_ah += f.batt_current_a * dt_s / 3600.0;
	s->batt_voltage_v = sim_batt_ocv_v(p, s->batt_used_ah) - f.batt_current_a * p->batt_r_ohm;
	if (f.sink_speed_max_m_s > s->impact_speed_max_m_s)
		s->impact_speed_max_m_s = f.sink_speed_max_m_s;
	if (f.sink_speed_max_m_s > p->crash_speed_m_s)
		s->crashed = true;
	/* A point that hits hard digs into the turf and stays dug in. */
	for (int i = 0; i < p->n_contacts; i++) {
		struct v3 rb = p->contact_body_m[i];
		if (ground_depth(terrain, v3_add(s->pos_ned_m, quat_rotate(s->att, rb))) <= 0.0)
			continue;
		if ((p->contact_crash_mask >> i & 1u) && !s->crashed) {
			s->crashed = true;
			s->crash_contact = i;
		}
		struct v3 vn = v3_add(s->vel_ned_m_s, quat_rotate(s->att, v3_cross(s->rate_body_rad_s, rb)));
		if (vn.z > p->nose_over_speed_m_s)
			s->dig[i] = true;
	}
	if (p->ground_kt_n_m > 0.0)
		move_anchors(p, s, terrain);
}

/* ---- trim ---- */

#define TRIM_N 6

/* Residuals of steady straight flight with wings level: body forces including
 * gravity, and the three moments. x = {alpha, elevator, throttle or flight-path
 * angle, sideslip, aileron, rudder}: a level trim balances the propeller's
 * torque with a little aileron and sideslip. */
static void trim_residual(const struct sim_airframe *p, double rho, double va, bool glide,
			  const double x[TRIM_N], double r[TRIM_N])
{
	double alpha = x[0], beta = x[3];
	double gamma = glide ? x[2] : 0.0;
	struct sim_state s;
	memset(&s, 0, sizeof(s));
	s.pos_ned_m = v3_make(0, 0, -100.0);
	s.att = quat_from_euler(0, alpha + gamma, 0);
	/* Air velocity in the body from alpha and beta, then to NED (still air). */
	struct v3 vb = v3_make(va * cos(alpha) * cos(beta), va * sin(beta), va * sin(alpha) * cos(beta));
	s.vel_ned_m_s = quat_rotate(s.att, vb);
	struct sim_controls u = { x[4], x[1], x[5], glide ? 0.0 : x[2] };
	struct sim_env env = { v3_make(0, 0, 0), rho };
	struct sim_forces f;
	/* The pack sags under the current it delivers: a few fixed-point rounds. */
	s.batt_voltage_v = sim_batt_ocv_v(p, 0.0);
	for (int i = 0; i < 4; i++) {
		sim_forces_eval(p, &s, &u, &env, &f);
		s.batt_voltage_v = sim_batt_ocv_v(p, 0.0) - f.batt_current_a * p->batt_r_ohm;
	}
	sim_forces_eval(p, &s, &u, &env, &f);
	struct v3 g = quat_rotate_inv(s.att, v3_make(0, 0, p->mass_kg * SIM_G0_M_S2));
	r[0] = f.force_body_n.x + g.x;
	r[1] = f.force_body_n.z + g.z;
	r[2] = f.moment_body_nm.y;
	r[3] = f.force_body_n.y + g.y;
	r[4] = f.moment_body_nm.x;
	r[5] = f.moment_body_nm.z;
}

/* Gaussian elimination with partial pivoting; a is destroyed. */
static int solve_n(double a[TRIM_N][TRIM_N], double b[TRIM_N], double x[TRIM_N])
{
	for (int c = 0; c < TRIM_N; c++) {
		int piv = c;
		for (int r = c + 1; r < TRIM_N; r++)
			if (fabs(a[r][c]) > fabs(a[piv][c]))
				piv = r;
		if (fabs(a[piv][c]) < 1e-12)
			return -EDOM;
		for (int k = 0; k < TRIM_N; k++) {
			double t = a[c][k];
			a[c][k] = a[piv][k];
			a[piv][k] = t;
		}
		double t = b[c];
		b[c] = b[piv];
		b[piv] = t;
		for (int r = c + 1; r < TRIM_N; r++) {
			double m = a[r][c] / a[c][c];
			for (int k = c; k < TRIM_N; k++)
				a[r][k] -= m * a[c][k];
			b[r] -= m * b[c];
		}
	}
	for (int c = TRIM_N - 1; c >= 0; c--) {
		double s = b[c];
		for (int k = c + 1; k < TRIM_N; k++)
			s -= a[c][k] * x[k];
		x[c] = s / a[c][c];
	}
	return 0;
}

static int trim_solve(const struct sim_airframe *p, double rho, double va, bool glide,
		      double x[TRIM_N])
{
	for (int it = 0; it < 60; it++) {
		double r[TRIM_N], j[TRIM_N][TRIM_N], dx[TRIM_N];
		trim_residual(p, rho, va, glide, x, r);
		double worst = 0;
		for (int k = 0; k < TRIM_N; k++)
			worst = fmax(worst, fabs(r[k]));
		if (worst < 1e-8)
			return 0;
		for (int c = 0; c < TRIM_N; c++) {
			double xp[TRIM_N], rp[TRIM_N];
			memcpy(xp, x, sizeof(xp));
			xp[c] += 1e-6;
			trim_residual(p, rho, va, glide, xp, rp);
			for (int k = 0; k < TRIM_N; k++)
				j[k][c] = (rp[k] - r[k]) / 1e-6;
		}
		if (solve_n(j, r, dx) != 0)
			return -EDOM;
		/* Damp big steps so a start far off does not jump past the stall. */
		for (int c = 0; c < TRIM_N; c++)
			x[c] -= clamp(dx[c], -0.1, 0.1);
	}
	return -EDOM;
}

/* On the back side of the lift curve: a "trim" there is a stalled one. */
static bool past_stall(const struct sim_airframe *p, double alpha)
{
	return sim_lift_coef(p, alpha + 1e-4) <= sim_lift_coef(p, alpha);
}

int sim_trim_level(const struct sim_airframe *p, double rho, double va, struct sim_trim *out)
{
	/* From half throttle; where the propeller gives nothing there (a fine
	 * pitch at speed), the throttle has no say in the residuals: from more. */
	static const double thr0[] = { 0.5, 0.75, 1.0 };
	double x[TRIM_N];
	int err = -EDOM;
	for (unsigned int i = 0; err && i < sizeof(thr0) / sizeof(thr0[0]); i++) {
		double x0[TRIM_N] = { 0.05, 0.0, thr0[i], 0.0, 0.0, 0.0 };
		memcpy(x, x0, sizeof(x));
		err = trim_solve(p, rho, va, false, x);
	}
	if (err)
		return err;
	if (x[2] < 0.0 || x[2] > 1.0 || fabs(x[1]) > 1.0 || fabs(x[4]) > 1.0 || fabs(x[5]) > 1.0 ||
	    past_stall(p, x[0]))
		return -ERANGE;
	*out = (struct sim_trim){ x[0], x[1], x[2], 0.0, x[3], x[4], x[5] };
	return 0;
}

int sim_trim_glide(const struct sim_airframe *p, double rho, double va, struct sim_trim *out)
{
	double x[TRIM_N] = { 0.05, 0.0, -0.1, 0.0, 0.0, 0.0 };
	int err = trim_solve(p, rho, va, true, x);
	if (err)
		return err;
	if (fabs(x[1]) > 1.0 || past_stall(p, x[0]))
		return -ERANGE;
	*out = (struct sim_trim){ x[0], x[1], 0.0, x[2], x[3], x[4], x[5] };
	return 0;
}

// SPDX-License-Identifier: GPL-3.0-or-later
#include "daemon/flight_params.h"

#include <string.h>

#include "param/param.h"

/* Sorted by name, as the parameter table is. */
const struct flight_param_bind flight_param_binds[] = {
	{ "ALT_HOLD_RTL", 0.01f, 1, { offsetof(struct plane_params, mexec.rtl_alt_m) } },
	{ "ARMING_CHECK", 1.0f, 1, { offsetof(struct plane_params, arming_check) } },
	{ "ARMING_REQUIRE", 1.0f, 1, { offsetof(struct plane_params, arming_require) } },
	{ "ARMING_RUDDER", 1.0f, 1, { offsetof(struct plane_params, arming_rudder) } },
	{ "ARSPD_FBW_MAX", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.arspd_fbw_max) } },
	{ "ARSPD_FBW_MIN", 1.0f, 2, { offsetof(struct plane_params, nav.tecs.arspd_fbw_min), offsetof(struct plane_params, ctl.arspd_fbw_min) } },
	{ "FLTMODE1", 1.0f, 1, { offsetof(struct plane_params, fltmode[0]) } },
	{ "FLTMODE2", 1.0f, 1, { offsetof(struct plane_params, fltmode[1]) } },
	{ "FLTMODE3", 1.0f, 1, { offsetof(struct plane_params, fltmode[2]) } },
	{ "FLTMODE4", 1.0f, 1, { offsetof(struct plane_params, fltmode[3]) } },
	{ "FLTMODE5", 1.0f, 1, { offsetof(struct plane_params, fltmode[4]) } },
	{ "FLTMODE6", 1.0f, 1, { offsetof(struct plane_params, fltmode[5]) } },
	{ "FLTMODE_CH", 1.0f, 1, { offsetof(struct plane_params, fltmode_ch) } },
	{ "FS_BATT_MAH", 1.0f, 1, { offsetof(struct plane_params, fs_batt_mah) } },
	{ "FS_BATT_VOLTAGE", 1.0f, 1, { offsetof(struct plane_params, fs_batt_voltage) } },
	{ "FS_GCS_ENABL", 1.0f, 1, { offsetof(struct plane_params, fs_gcs_enabl) } },
	{ "FS_LONG_ACTN", 1.0f, 1, { offsetof(struct plane_params, fs_long_actn) } },
	{ "FS_LONG_TIMEOUT", 1.0f, 1, { offsetof(struct plane_params, fs_long_timeout) } },
	{ "FS_SHORT_ACTN", 1.0f, 1, { offsetof(struct plane_params, fs_short_actn) } },
	{ "FS_SHORT_TIMEOUT", 1.0f, 1, { offsetof(struct plane_params, fs_short_timeout) } },
	{ "KFF_RDDRMIX", 1.0f, 1, { offsetof(struct plane_params, ctl.kff_rddrmix) } },
	{ "LAND_DISARMDELAY", 1.0f, 1, { offsetof(struct plane_params, mexec.land_disarm_s) } },
	{ "LAND_FLARE_ALT", 1.0f, 1, { offsetof(struct plane_params, nav.land_flare_alt) } },
	{ "LAND_FLARE_SEC", 1.0f, 1, { offsetof(struct plane_params, nav.land_flare_sec) } },
	{ "LAND_PITCH_CD", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.land_pitch_cd) } },
	{ "LEVEL_ROLL_LIMIT", 1.0f, 1, { offsetof(struct plane_params, nav.level_roll_limit) } },
	{ "LIM_PITCH_MAX", 1.0f, 2, { offsetof(struct plane_params, nav.tecs.lim_pitch_max), offsetof(struct plane_params, lim_pitch_max) } },
	{ "LIM_PITCH_MIN", 1.0f, 2, { offsetof(struct plane_params, nav.tecs.lim_pitch_min), offsetof(struct plane_params, lim_pitch_min) } },
	{ "LIM_ROLL_CD", 1.0f, 1, { offsetof(struct plane_params, nav.lim_roll_cd) } },
	{ "MIXING_GAIN", 1.0f, 1, { offsetof(struct plane_params, servo.mixing_gain) } },
	{ "NAVL1_DAMPING", 1.0f, 1, { offsetof(struct plane_params, nav.l1.navl1_damping) } },
	{ "NAVL1_PERIOD", 1.0f, 1, { offsetof(struct plane_params, nav.l1.navl1_period) } },
	{ "PTCH2SRV_D", 1.0f, 1, { offsetof(struct plane_params, ctl.ptch2srv_d) } },
	{ "PTCH2SRV_I", 1.0f, 1, { offsetof(struct plane_params, ctl.ptch2srv_i) } },
	{ "PTCH2SRV_IMAX", 1.0f, 1, { offsetof(struct plane_params, ctl.ptch2srv_imax) } },
	{ "PTCH2SRV_P", 1.0f, 1, { offsetof(struct plane_params, ctl.ptch2srv_p) } },
	{ "PTCH2SRV_RLL", 1.0f, 1, { offsetof(struct plane_params, ctl.ptch2srv_rll) } },
	{ "PTCH2SRV_RMAX_DN", 1.0f, 1, { offsetof(struct plane_params, ctl.ptch2srv_rmax_dn) } },
	{ "PTCH2SRV_RMAX_UP", 1.0f, 1, { offsetof(struct plane_params, ctl.ptch2srv_rmax_up) } },
	{ "PTCH2SRV_TCONST", 1.0f, 1, { offsetof(struct plane_params, ctl.ptch2srv_tconst) } },
	{ "RLL2SRV_D", 1.0f, 1, { offsetof(struct plane_params, ctl.rll2srv_d) } },
	{ "RLL2SRV_I", 1.0f, 1, { offsetof(struct plane_params, ctl.rll2srv_i) } },
	{ "RLL2SRV_IMAX", 1.0f, 1, { offsetof(struct plane_params, ctl.rll2srv_imax) } },
	{ "RLL2SRV_P", 1.0f, 1, { offsetof(struct plane_params, ctl.rll2srv_p) } },
	{ "RLL2SRV_RMAX", 1.0f, 1, { offsetof(struct plane_params, ctl.rll2srv_rmax) } },
	{ "RLL2SRV_TCONST", 1.0f, 1, { offsetof(struct plane_params, ctl.rll2srv_tconst) } },
	{ "RTL_AUTOLAND", 1.0f, 1, { offsetof(struct plane_params, rtl_autoland) } },
	{ "SCALING_SPEED", 1.0f, 1, { offsetof(struct plane_params, ctl.scaling_speed) } },
	{ "SERVO1_FUNCTION", 1.0f, 1, { offsetof(struct plane_params, servo.ch[0].servo_function) } },
	{ "SERVO1_MAX", 1.0f, 1, { offsetof(struct plane_params, servo.ch[0].servo_max) } },
	{ "SERVO1_MIN", 1.0f, 1, { offsetof(struct plane_params, servo.ch[0].servo_min) } },
	{ "SERVO1_REVERSED", 1.0f, 1, { offsetof(struct plane_params, servo.ch[0].servo_reversed) } },
	{ "SERVO1_TRIM", 1.0f, 1, { offsetof(struct plane_params, servo.ch[0].servo_trim) } },
	{ "SERVO2_FUNCTION", 1.0f, 1, { offsetof(struct plane_params, servo.ch[1].servo_function) } },
	{ "SERVO2_MAX", 1.0f, 1, { offsetof(struct plane_params, servo.ch[1].servo_max) } },
	{ "SERVO2_MIN", 1.0f, 1, { offsetof(struct plane_params, servo.ch[1].servo_min) } },
	{ "SERVO2_REVERSED", 1.0f, 1, { offsetof(struct plane_params, servo.ch[1].servo_reversed) } },
	{ "SERVO2_TRIM", 1.0f, 1, { offsetof(struct plane_params, servo.ch[1].servo_trim) } },
	{ "SERVO3_FUNCTION", 1.0f, 1, { offsetof(struct plane_params, servo.ch[2].servo_function) } },
	{ "SERVO3_MAX", 1.0f, 1, { offsetof(struct plane_params, servo.ch[2].servo_max) } },
	{ "SERVO3_MIN", 1.0f, 1, { offsetof(struct plane_params, servo.ch[2].servo_min) } },
	{ "SERVO3_REVERSED", 1.0f, 1, { offsetof(struct plane_params, servo.ch[2].servo_reversed) } },
	{ "SERVO3_TRIM", 1.0f, 1, { offsetof(struct plane_params, servo.ch[2].servo_trim) } },
	{ "SERVO4_FUNCTION", 1.0f, 1, { offsetof(struct plane_params, servo.ch[3].servo_function) } },
	{ "SERVO4_MAX", 1.0f, 1, { offsetof(struct plane_params, servo.ch[3].servo_max) } },
	{ "SERVO4_MIN", 1.0f, 1, { offsetof(struct plane_params, servo.ch[3].servo_min) } },
	{ "SERVO4_REVERSED", 1.0f, 1, { offsetof(struct plane_params, servo.ch[3].servo_reversed) } },
	{ "SERVO4_TRIM", 1.0f, 1, { offsetof(struct plane_params, servo.ch[3].servo_trim) } },
	{ "SERVO5_FUNCTION", 1.0f, 1, { offsetof(struct plane_params, servo.ch[4].servo_function) } },
	{ "SERVO5_MAX", 1.0f, 1, { offsetof(struct plane_params, servo.ch[4].servo_max) } },
	{ "SERVO5_MIN", 1.0f, 1, { offsetof(struct plane_params, servo.ch[4].servo_min) } },
	{ "SERVO5_REVERSED", 1.0f, 1, { offsetof(struct plane_params, servo.ch[4].servo_reversed) } },
	{ "SERVO5_TRIM", 1.0f, 1, { offsetof(struct plane_params, servo.ch[4].servo_trim) } },
	{ "SERVO6_FUNCTION", 1.0f, 1, { offsetof(struct plane_params, servo.ch[5].servo_function) } },
	{ "SERVO6_MAX", 1.0f, 1, { offsetof(struct plane_params, servo.ch[5].servo_max) } },
	{ "SERVO6_MIN", 1.0f, 1, { offsetof(struct plane_params, servo.ch[5].servo_min) } },
	{ "SERVO6_REVERSED", 1.0f, 1, { offsetof(struct plane_params, servo.ch[5].servo_reversed) } },
	{ "SERVO6_TRIM", 1.0f, 1, { offsetof(struct plane_params, servo.ch[5].servo_trim) } },
	{ "SERVO7_FUNCTION", 1.0f, 1, { offsetof(struct plane_params, servo.ch[6].servo_function) } },
	{ "SERVO7_MAX", 1.0f, 1, { offsetof(struct plane_params, servo.ch[6].servo_max) } },
	{ "SERVO7_MIN", 1.0f, 1, { offsetof(struct plane_params, servo.ch[6].servo_min) } },
	{ "SERVO7_REVERSED", 1.0f, 1, { offsetof(struct plane_params, servo.ch[6].servo_reversed) } },
	{ "SERVO7_TRIM", 1.0f, 1, { offsetof(struct plane_params, servo.ch[6].servo_trim) } },
	{ "SERVO8_FUNCTION", 1.0f, 1, { offsetof(struct plane_params, servo.ch[7].servo_function) } },
	{ "SERVO8_MAX", 1.0f, 1, { offsetof(struct plane_params, servo.ch[7].servo_max) } },
	{ "SERVO8_MIN", 1.0f, 1, { offsetof(struct plane_params, servo.ch[7].servo_min) } },
	{ "SERVO8_REVERSED", 1.0f, 1, { offsetof(struct plane_params, servo.ch[7].servo_reversed) } },
	{ "SERVO8_TRIM", 1.0f, 1, { offsetof(struct plane_params, servo.ch[7].servo_trim) } },
	{ "TECS_CLMB_MAX", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_clmb_max) } },
	{ "TECS_INTEG_GAIN", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_integ_gain) } },
	{ "TECS_LAND_DAMP", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_land_damp) } },
	{ "TECS_LAND_SINK", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_land_sink) } },
	{ "TECS_LAND_TCONST", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_land_tconst) } },
	{ "TECS_PTCH_DAMP", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_ptch_damp) } },
	{ "TECS_RLL2THR", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_rll2thr) } },
	{ "TECS_SINK_MAX", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_sink_max) } },
	{ "TECS_SINK_MIN", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_sink_min) } },
	{ "TECS_SPDWEIGHT", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_spdweight) } },
	{ "TECS_SPD_OMEGA", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_spd_omega) } },
	{ "TECS_THR_DAMP", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_thr_damp) } },
	{ "TECS_TIME_CONST", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_time_const) } },
	{ "TECS_VERT_ACC", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.tecs_vert_acc) } },
	{ "THR_FAILSAFE", 1.0f, 1, { offsetof(struct plane_params, thr_failsafe) } },
	{ "THR_FS_VALUE", 1.0f, 1, { offsetof(struct plane_params, thr_fs_value) } },
	{ "THR_MAX", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.thr_max) } },
	{ "THR_MIN", 1.0f, 1, { offsetof(struct plane_params, nav.tecs.thr_min) } },
	{ "THR_SLEWRATE", 1.0f, 1, { offsetof(struct plane_params, servo.thr_slewrate) } },
	{ "TKOFF_ALT", 1.0f, 1, { offsetof(struct plane_params, tkoff_alt) } },
	{ "TKOFF_THR_DELAY", 1.0f, 1, { offsetof(struct plane_params, nav.launch.tkoff_thr_delay) } },
	{ "TKOFF_THR_MINACC", 1.0f, 1, { offsetof(struct plane_params, nav.launch.tkoff_thr_minacc) } },
	{ "TKOFF_THR_MINSPD", 1.0f, 1, { offsetof(struct plane_params, nav.launch.tkoff_thr_minspd) } },
	{ "TRIM_ARSPD_CM", 1.0f, 1, { offsetof(struct plane_params, nav.trim_arspd_cm) } },
	{ "TRIM_THROTTLE", 1.0f, 2, { offsetof(struct plane_params, nav.tecs.trim_throttle), offsetof(struct plane_params, ctl.trim_throttle) } },
	{ "WP_LOITER_RAD", 1.0f, 1, { offsetof(struct plane_params, mexec.wp_loiter_rad_m) } },
	{ "WP_RADIUS", 1.0f, 1, { offsetof(struct plane_params, nav.wp_radius) } },
	{ "YAW2SRV_DAMP", 1.0f, 1, { offsetof(struct plane_params, ctl.yaw2srv_damp) } },
	{ "YAW2SRV_IMAX", 1.0f, 1, { offsetof(struct plane_params, ctl.yaw2srv_imax) } },
	{ "YAW2SRV_INT", 1.0f, 1, { offsetof(struct plane_params, ctl.yaw2srv_int) } },
	{ "YAW2SRV_RLL", 1.0f, 1, { offsetof(struct plane_params, ctl.yaw2srv_rll) } },
	{ "YAW2SRV_SLIP", 1.0f, 1, { offsetof(struct plane_params, ctl.yaw2srv_slip) } },
};

const unsigned int flight_param_count = sizeof(flight_param_binds) / sizeof(flight_param_binds[0]);

unsigned int flight_params_load(struct plane_params *pp)
{
	unsigned int missing = 0;
	for (unsigned int i = 0; i < flight_param_count; i++) {
		const struct flight_param_bind *b = &flight_param_binds[i];
		int idx = param_find(b->name);
		if (idx < 0) {
			missing++;
			continue;
		}
		float v = param_get(idx) * b->scale;
		for (unsigned int k = 0; k < b->n; k++)
			memcpy((char *)pp + b->off[k], &v, sizeof(v));
	}
	return missing;
}

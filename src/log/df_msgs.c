// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "log/df_msgs.h"

#define F DF_FIELD
static const struct df_field late_fields[] = {
	F(struct df_late, t_us), F(struct df_late, thread), F(struct df_late, cause),
	F(struct df_late, period_us), F(struct df_late, interval_us), F(struct df_late, late_us),
	F(struct df_late, run_us), F(struct df_late, task_us), F(struct df_late, run_delay_us),
	F(struct df_late, cpu_us), F(struct df_late, nvcsw), F(struct df_late, nivcsw),
	F(struct df_late, minflt), F(struct df_late, majflt), F(struct df_late, task),
};
static const struct df_field pmt_fields[] = {
	F(struct df_pmt, t_us), F(struct df_pmt, thread), F(struct df_pmt, n_loop),
	F(struct df_pmt, n_long), F(struct df_pmt, n_late), F(struct df_pmt, max_i_us),
	F(struct df_pmt, max_w_us), F(struct df_pmt, max_r_us), F(struct df_pmt, load_permille),
};
static const struct df_field parm_fields[] = {
	F(struct df_parm, t_us), F(struct df_parm, name), F(struct df_parm, value),
	F(struct df_parm, default_value),
};
static const struct df_field msg_fields[] = { F(struct df_msg, t_us), F(struct df_msg, text) };
static const struct df_field mode_fields[] = {
	F(struct df_mode, t_us), F(struct df_mode, mode), F(struct df_mode, mode_num),
	F(struct df_mode, reason),
};
static const struct df_field ev_fields[] = { F(struct df_ev, t_us), F(struct df_ev, id) };
static const struct df_field err_fields[] = {
	F(struct df_err, t_us), F(struct df_err, subsys), F(struct df_err, code),
};
static const struct df_field pm_fields[] = {
	F(struct df_pm, t_us), F(struct df_pm, loop_rate_hz), F(struct df_pm, n_long),
	F(struct df_pm, n_loop), F(struct df_pm, max_t_us), F(struct df_pm, min_t_us),
	F(struct df_pm, avg_t_us), F(struct df_pm, log_drop), F(struct df_pm, load_permille),
};
static const struct df_field att_fields[] = {
	F(struct df_att, t_us), F(struct df_att, des_roll_cdeg), F(struct df_att, roll_cdeg),
	F(struct df_att, des_pitch_cdeg), F(struct df_att, pitch_cdeg),
	F(struct df_att, des_yaw_cdeg), F(struct df_att, yaw_cdeg),
	F(struct df_att, err_rp_x100), F(struct df_att, err_yaw_x100),
};
static const struct df_field gps_fields[] = {
	F(struct df_gps, t_us), F(struct df_gps, instance), F(struct df_gps, status),
	F(struct df_gps, week_ms), F(struct df_gps, week), F(struct df_gps, num_sats),
	F(struct df_gps, hdop_x100), F(struct df_gps, lat_1e7), F(struct df_gps, lng_1e7),
	F(struct df_gps, alt_msl_cm), F(struct df_gps, ground_speed_m_s),
	F(struct df_gps, course_deg), F(struct df_gps, vel_down_m_s), F(struct df_gps, yaw_deg),
	F(struct df_gps, used),
};
static const struct df_field imu_fields[] = {
	F(struct df_imu, t_us), F(struct df_imu, instance),
	F(struct df_imu, gyr_x_rad_s), F(struct df_imu, gyr_y_rad_s), F(struct df_imu, gyr_z_rad_s),
	F(struct df_imu, acc_x_m_s2), F(struct df_imu, acc_y_m_s2), F(struct df_imu, acc_z_m_s2),
	F(struct df_imu, gyro_errors), F(struct df_imu, accel_errors), F(struct df_imu, temp_degc),
	F(struct df_imu, gyro_healthy), F(struct df_imu, accel_healthy),
	F(struct df_imu, gyro_rate_hz), F(struct df_imu, accel_rate_hz),
};
static const struct df_field baro_fields[] = {
	F(struct df_baro, t_us), F(struct df_baro, instance), F(struct df_baro, alt_m), F(struct df_baro, alt_amsl_m),
	F(struct df_baro, press_pa), F(struct df_baro, temp_cdegc), F(struct df_baro, climb_m_s),
	F(struct df_baro, sample_ms), F(struct df_baro, offset_m),
	F(struct df_baro, gnd_temp_degc), F(struct df_baro, healthy),
};
static const struct df_field mag_fields[] = {
	F(struct df_mag, t_us), F(struct df_mag, instance),
	F(struct df_mag, mag_x_mga), F(struct df_mag, mag_y_mga), F(struct df_mag, mag_z_mga),
	F(struct df_mag, ofs_x_mga), F(struct df_mag, ofs_y_mga), F(struct df_mag, ofs_z_mga),
	F(struct df_mag, mot_x_mga), F(struct df_mag, mot_y_mga), F(struct df_mag, mot_z_mga),
	F(struct df_mag, healthy), F(struct df_mag, sample_us),
};
static const struct df_field pos_fields[] = {
	F(struct df_pos, t_us), F(struct df_pos, lat_1e7), F(struct df_pos, lng_1e7),
	F(struct df_pos, alt_msl_m), F(struct df_pos, rel_home_alt_m),
	F(struct df_pos, rel_origin_alt_m),
};
static const struct df_field ctun_fields[] = {
	F(struct df_ctun, t_us), F(struct df_ctun, nav_roll_cdeg), F(struct df_ctun, roll_cdeg),
	F(struct df_ctun, nav_pitch_cdeg), F(struct df_ctun, pitch_cdeg),
	F(struct df_ctun, throttle_out_pct), F(struct df_ctun, rudder_out),
	F(struct df_ctun, throttle_dem_pct), F(struct df_ctun, airspeed_m_s),
	F(struct df_ctun, sensor_airspeed_m_s), F(struct df_ctun, eas2tas),
};
static const struct df_field rate_fields[] = {
	F(struct df_rate, t_us), F(struct df_rate, roll_des), F(struct df_rate, roll),
	F(struct df_rate, roll_out), F(struct df_rate, pitch_des), F(struct df_rate, pitch),
	F(struct df_rate, pitch_out), F(struct df_rate, yaw_des), F(struct df_rate, yaw),
	F(struct df_rate, yaw_out), F(struct df_rate, accel_des), F(struct df_rate, accel),
	F(struct df_rate, accel_out), F(struct df_rate, accel_out_slew),
};
static const struct df_field psc_fields[] = {
	F(struct df_psc, t_us), F(struct df_psc, pos_des), F(struct df_psc, pos_tgt),
	F(struct df_psc, pos), F(struct df_psc, vel_des), F(struct df_psc, vel_tgt),
	F(struct df_psc, vel), F(struct df_psc, acc_des), F(struct df_psc, acc_tgt),
	F(struct df_psc, acc),
};
static const struct df_field catt_fields[] = {
	F(struct df_catt, t_us), F(struct df_catt, des_roll), F(struct df_catt, roll),
	F(struct df_catt, des_pitch), F(struct df_catt, pitch), F(struct df_catt, des_yaw),
	F(struct df_catt, yaw), F(struct df_catt, aekf),
};
static const struct df_field cctun_fields[] = {
	F(struct df_cctun, t_us), F(struct df_cctun, thr_in), F(struct df_cctun, angle_boost),
	F(struct df_cctun, thr_out), F(struct df_cctun, thr_hover), F(struct df_cctun, des_alt_m),
	F(struct df_cctun, alt_m), F(struct df_cctun, baro_alt_cm),
	F(struct df_cctun, des_sonar_alt_m), F(struct df_cctun, sonar_alt_m),
	F(struct df_cctun, terrain_alt_m), F(struct df_cctun, des_climb_cm_s),
	F(struct df_cctun, climb_cm_s),
};
static const struct df_field motb_fields[] = {
	F(struct df_motb, t_us), F(struct df_motb, lift_max), F(struct df_motb, bat_volt),
	F(struct df_motb, th_limit), F(struct df_motb, thr_av_max), F(struct df_motb, thr_out),
	F(struct df_motb, fail_flags),
};
static const struct df_field ntun_fields[] = {
	F(struct df_ntun, t_us), F(struct df_ntun, wp_dist_m),
	F(struct df_ntun, target_bearing_cdeg), F(struct df_ntun, nav_bearing_cdeg),
	F(struct df_ntun, alt_err_cm), F(struct df_ntun, xtrack_m), F(struct df_ntun, xtrack_i),
	F(struct df_ntun, airspeed_err_m_s), F(struct df_ntun, target_lat_1e7),
	F(struct df_ntun, target_lng_1e7), F(struct df_ntun, target_alt_cm),
};
static const struct df_field tecs_fields[] = {
	F(struct df_tecs, t_us), F(struct df_tecs, h_m), F(struct df_tecs, dh_m_s),
	F(struct df_tecs, h_dem_m), F(struct df_tecs, dh_dem_m_s), F(struct df_tecs, spd_dem_m_s),
	F(struct df_tecs, spd_m_s), F(struct df_tecs, dspd_m_s2), F(struct df_tecs, integ_thr),
	F(struct df_tecs, integ_pitch), F(struct df_tecs, thr), F(struct df_tecs, pitch_dem_rad),
	F(struct df_tecs, dspd_dem_m_s2), F(struct df_tecs, spd_weight), F(struct df_tecs, flags),
};
static const struct df_field rc_fields[] = {
	F(struct df_rc, t_us), F(struct df_rc, ch_us[0]), F(struct df_rc, ch_us[1]),
	F(struct df_rc, ch_us[2]), F(struct df_rc, ch_us[3]), F(struct df_rc, ch_us[4]),
	F(struct df_rc, ch_us[5]), F(struct df_rc, ch_us[6]), F(struct df_rc, ch_us[7]),
	F(struct df_rc, ch_us[8]), F(struct df_rc, ch_us[9]), F(struct df_rc, ch_us[10]),
	F(struct df_rc, ch_us[11]), F(struct df_rc, ch_us[12]), F(struct df_rc, ch_us[13]),
};
static const struct df_field bat_fields[] = {
	F(struct df_bat, t_us), F(struct df_bat, instance), F(struct df_bat, volt_v),
	F(struct df_bat, volt_rest_v), F(struct df_bat, curr_a), F(struct df_bat, used_mah),
	F(struct df_bat, used_wh), F(struct df_bat, temp_cdegc), F(struct df_bat, resistance_ohm),
	F(struct df_bat, remaining_pct), F(struct df_bat, healthy), F(struct df_bat, health_pct),
};
static const struct df_field cmd_fields[] = {
	F(struct df_cmd, t_us), F(struct df_cmd, total), F(struct df_cmd, seq),
	F(struct df_cmd, command), F(struct df_cmd, param1), F(struct df_cmd, param2),
	F(struct df_cmd, param3), F(struct df_cmd, param4), F(struct df_cmd, lat_1e7),
	F(struct df_cmd, lng_1e7), F(struct df_cmd, alt_m), F(struct df_cmd, frame),
};
static const struct df_field xkf1_fields[] = {
	F(struct df_xkf1, t_us), F(struct df_xkf1, core), F(struct df_xkf1, roll_cdeg),
	F(struct df_xkf1, pitch_cdeg), F(struct df_xkf1, yaw_cdeg), F(struct df_xkf1, vel_n_m_s),
	F(struct df_xkf1, vel_e_m_s), F(struct df_xkf1, vel_d_m_s), F(struct df_xkf1, dpos_d_m_s),
	F(struct df_xkf1, pos_n_m), F(struct df_xkf1, pos_e_m), F(struct df_xkf1, pos_d_m),
	F(struct df_xkf1, gyro_bias_x_cdeg_s), F(struct df_xkf1, gyro_bias_y_cdeg_s),
	F(struct df_xkf1, gyro_bias_z_cdeg_s), F(struct df_xkf1, origin_hgt_cm),
};
static const struct df_field xkf3_fields[] = {
	F(struct df_xkf3, t_us), F(struct df_xkf3, core), F(struct df_xkf3, ivn_cm_s),
	F(struct df_xkf3, ive_cm_s), F(struct df_xkf3, ivd_cm_s), F(struct df_xkf3, ipn_cm),
	F(struct df_xkf3, ipe_cm), F(struct df_xkf3, ipd_cm), F(struct df_xkf3, imx_mga),
	F(struct df_xkf3, imy_mga), F(struct df_xkf3, imz_mga), F(struct df_xkf3, iyaw_cdeg),
	F(struct df_xkf3, ivt_cm_s), F(struct df_xkf3, rerr), F(struct df_xkf3, err_score),
};
static const struct df_field xkf4_fields[] = {
	F(struct df_xkf4, t_us), F(struct df_xkf4, core), F(struct df_xkf4, sv_x100),
	F(struct df_xkf4, sp_x100), F(struct df_xkf4, sh_x100), F(struct df_xkf4, sm_x100),
	F(struct df_xkf4, svt_x100), F(struct df_xkf4, err_rp), F(struct df_xkf4, ofn_m),
	F(struct df_xkf4, ofe_m), F(struct df_xkf4, faults), F(struct df_xkf4, timeouts),
	F(struct df_xkf4, solution), F(struct df_xkf4, gps_check), F(struct df_xkf4, primary),
};
static const struct df_field xkf2_fields[] = {
	F(struct df_xkf2, t_us), F(struct df_xkf2, core), F(struct df_xkf2, ax_cm_s2),
	F(struct df_xkf2, ay_cm_s2), F(struct df_xkf2, az_cm_s2), F(struct df_xkf2, vwn_cm_s),
	F(struct df_xkf2, vwe_cm_s), F(struct df_xkf2, mn_mga), F(struct df_xkf2, me_mga),
	F(struct df_xkf2, md_mga), F(struct df_xkf2, mx_mga), F(struct df_xkf2, my_mga),
	F(struct df_xkf2, mz_mga), F(struct df_xkf2, idx_m_s2), F(struct df_xkf2, idy_m_s2),
	F(struct df_xkf2, is_rad),
};
static const struct df_field arsp_fields[] = {
	F(struct df_arsp, t_us), F(struct df_arsp, instance), F(struct df_arsp, airspeed_m_s),
	F(struct df_arsp, diff_press_pa), F(struct df_arsp, temp_cdegc), F(struct df_arsp, raw_press_pa),
	F(struct df_arsp, offset_pa), F(struct df_arsp, use), F(struct df_arsp, healthy),
	F(struct df_arsp, health_prob), F(struct df_arsp, test_ratio), F(struct df_arsp, primary),
};
static const struct df_field rfnd_fields[] = {
	F(struct df_rfnd, t_us), F(struct df_rfnd, instance), F(struct df_rfnd, dist_cm),
	F(struct df_rfnd, status), F(struct df_rfnd, orient),
};
static const struct df_field vibe_fields[] = {
	F(struct df_vibe, t_us), F(struct df_vibe, imu), F(struct df_vibe, vibe_x_m_s2),
	F(struct df_vibe, vibe_y_m_s2), F(struct df_vibe, vibe_z_m_s2), F(struct df_vibe, clip),
};
static const struct df_field powr_fields[] = {
	F(struct df_powr, t_us), F(struct df_powr, vcc_v), F(struct df_powr, vservo_v),
	F(struct df_powr, flags), F(struct df_powr, acc_flags), F(struct df_powr, safety),
};
static const struct df_field orgn_fields[] = {
	F(struct df_orgn, t_us), F(struct df_orgn, type), F(struct df_orgn, lat_1e7),
	F(struct df_orgn, lng_1e7), F(struct df_orgn, alt_cm),
};
static const struct df_field dsf_fields[] = {
	F(struct df_dsf, t_us), F(struct df_dsf, dropped), F(struct df_dsf, writes),
	F(struct df_dsf, bytes), F(struct df_dsf, free_min), F(struct df_dsf, free_max),
	F(struct df_dsf, free_avg),
};
#undef F

const struct df_msg_def df_msg_defs[] = {
	{ DF_ID_FMT, DF_FMT_LEN, "FMT", "BBnNZ", "Type,Length,Name,Format,Columns",
	  "-b---", "-----", NULL },
	{ DF_ID_UNIT, DF_UNIT_LEN, "UNIT", "QbZ", "TimeUS,Id,Label", "s--", "F--", NULL },
	{ DF_ID_MULT, DF_MULT_LEN, "MULT", "Qbd", "TimeUS,Id,Mult", "s--", "F--", NULL },
	{ DF_ID_FMTU, DF_FMTU_LEN, "FMTU", "QBNN", "TimeUS,FmtType,UnitIds,MultIds",
	  "s---", "F---", NULL },
	{ DF_ID_PARM, DF_PARM_LEN, "PARM", "QNff", "TimeUS,Name,Value,Default",
	  "s---", "F---", parm_fields },
	{ DF_ID_MSG, DF_MSG_LEN, "MSG", "QZ", "TimeUS,Message", "s-", "F-", msg_fields },
	{ DF_ID_MODE, DF_MODE_LEN, "MODE", "QMBB", "TimeUS,Mode,ModeNum,Rsn",
	  "s---", "F---", mode_fields },
	{ DF_ID_EV, DF_EV_LEN, "EV", "QB", "TimeUS,Id", "s-", "F-", ev_fields },
	{ DF_ID_ERR, DF_ERR_LEN, "ERR", "QBB", "TimeUS,Subsys,ECode", "s--", "F--", err_fields },
	{ DF_ID_PM, DF_PM_LEN, "PM", "QHHHIIIIH",
	  "TimeUS,LR,NLon,NLoop,MaxT,MinT,AvgT,LogDrop,Load",
	  "sz--sss-%", "F---FFF-A", pm_fields },
	{ DF_ID_DSF, DF_DSF_LEN, "DSF", "QIHIIII", "TimeUS,Dp,Blk,Bytes,FMn,FMx,FAv",
	  "s--bbbb", "F--0000", dsf_fields },
	{ DF_ID_LATE, DF_LATE_LEN, "LATE", "QBBIIIIIIIHHHHN",
	  "TimeUS,Thr,Cause,Per,Ivl,Lat,Run,TkT,Dly,Cpu,VC,IC,Fmn,Fmj,Task",
	  "s--sssssss-----", "F--FFFFFFF-----", late_fields },
	{ DF_ID_PMT, DF_PMT_LEN, "PMT", "QBIHHIIIH", "TimeUS,Thr,NLoop,NLon,NL2x,MaxI,MaxW,MaxR,Load",
	  "s----sss%", "F----FFFA", pmt_fields },
	{ DF_ID_ATT, DF_ATT_LEN, "ATT", "QccccCCCC",
	  "TimeUS,DesRoll,Roll,DesPitch,Pitch,DesYaw,Yaw,ErrRP,ErrYaw",
	  "sdddddd--", "FBBBBBBBB", att_fields },
	{ DF_ID_GPS, DF_GPS_LEN, "GPS", "QBBIHBcLLeffffB",
	  "TimeUS,I,Status,GMS,GWk,NSats,HDop,Lat,Lng,Alt,Spd,GCrs,VZ,Yaw,U",
	  "s#-s-S-DUmnhnh-", "F--C--BGGB-----", gps_fields },
	{ DF_ID_IMU, DF_IMU_LEN, "IMU", "QBffffffIIfBBHH",
	  "TimeUS,I,GyrX,GyrY,GyrZ,AccX,AccY,AccZ,EG,EA,T,GH,AH,GHz,AHz",
	  "s#EEEooo--O--zz", "F-000000-----00", imu_fields },
	{ DF_ID_BARO, DF_BARO_LEN, "BARO", "QBfffcfIffB",
	  "TimeUS,I,Alt,AltAMSL,Press,Temp,CRt,SMS,Offset,GndTemp,Health",
	  "s#mmPOnsmO-", "F-000B0C00-", baro_fields },
	{ DF_ID_MAG, DF_MAG_LEN, "MAG", "QBhhhhhhhhhBI",
	  "TimeUS,I,MagX,MagY,MagZ,OfsX,OfsY,OfsZ,MOX,MOY,MOZ,Health,S",
	  "s#GGGGGGGGG-s", "F-CCCCCCCCC-F", mag_fields },
	{ DF_ID_POS, DF_POS_LEN, "POS", "QLLfff", "TimeUS,Lat,Lng,Alt,RelHomeAlt,RelOriginAlt",
	  "sDUmmm", "FGG000", pos_fields },
	{ DF_ID_CTUN, DF_CTUN_LEN, "CTUN", "Qcccchhhfff",
	  "TimeUS,NavRoll,Roll,NavPitch,Pitch,ThO,RdrOut,ThD,As,SAs,E2T",
	  "sdddd%-%nn-", "FBBBB0-000-", ctun_fields },
	/* The copter's: ArduCopter 4.6's formats, columns, units and multipliers. */
	{ DF_ID_RATE, DF_RATE_LEN, "RATE", "Qfffffffffffff",
	  "TimeUS,RDes,R,ROut,PDes,P,POut,YDes,Y,YOut,ADes,A,AOut,AOutSlew",
	  "skk-kk-kk-oo--", "F?????????BB--", rate_fields },
	{ DF_ID_PSCN, DF_PSC_LEN, "PSCN", "Qfffffffff", "TimeUS,DPN,TPN,PN,DVN,TVN,VN,DAN,TAN,AN",
	  "smmmnnnooo", "F000000000", psc_fields },
	{ DF_ID_PSCE, DF_PSC_LEN, "PSCE", "Qfffffffff", "TimeUS,DPE,TPE,PE,DVE,TVE,VE,DAE,TAE,AE",
	  "smmmnnnooo", "F000000000", psc_fields },
	{ DF_ID_PSCD, DF_PSC_LEN, "PSCD", "Qfffffffff", "TimeUS,DPD,TPD,PD,DVD,TVD,VD,DAD,TAD,AD",
	  "smmmnnnooo", "F000000000", psc_fields },
	{ DF_ID_CATT, DF_CATT_LEN, "ATT", "QffffffB", "TimeUS,DesRoll,Roll,DesPitch,Pitch,DesYaw,Yaw,AEKF",
	  "sddddhh-", "F000000-", catt_fields },
	{ DF_ID_CCTUN, DF_CCTUN_LEN, "CTUN", "Qffffffefffhh",
	  "TimeUS,ThI,ABst,ThO,ThH,DAlt,Alt,BAlt,DSAlt,SAlt,TAlt,DCRt,CRt",
	  "s----mmmmmmnn", "F----00B000BB", cctun_fields },
	{ DF_ID_MOTB, DF_MOTB_LEN, "MOTB", "QfffffB", "TimeUS,LiftMax,BatVolt,ThLimit,ThrAvMx,ThrOut,FailFlags",
	  "s------", "F------", motb_fields },
	{ DF_ID_NTUN, DF_NTUN_LEN, "NTUN", "QfcccfffLLe",
	  "TimeUS,Dist,TBrg,NavBrg,AltE,XT,XTi,AsE,TLat,TLng,TAlt",
	  "smhhmm-nDUm", "F0BBB0-0GGB", ntun_fields },
	{ DF_ID_TECS, DF_TECS_LEN, "TECS", "QfffffffffffffB",
	  "TimeUS,h,dh,hdem,dhdem,spdem,sp,dsp,ith,iph,th,ph,dspdem,w,f",
	  "smnmnnno---ro--", "F0000000---00--", tecs_fields },
	{ DF_ID_RCIN, DF_RCIN_LEN, "RCIN", "QHHHHHHHHHHHHHH",
	  "TimeUS,C1,C2,C3,C4,C5,C6,C7,C8,C9,C10,C11,C12,C13,C14",
	  "sYYYYYYYYYYYYYY", "F00000000000000", rc_fields },
	{ DF_ID_RCOU, DF_RCOU_LEN, "RCOU", "QHHHHHHHHHHHHHH",
	  "TimeUS,C1,C2,C3,C4,C5,C6,C7,C8,C9,C10,C11,C12,C13,C14",
	  "sYYYYYYYYYYYYYY", "F00000000000000", rc_fields },
	{ DF_ID_BAT, DF_BAT_LEN, "BAT", "QBfffffcfBBB",
	  "TimeUS,Inst,Volt,VoltR,Curr,CurrTot,EnrgTot,Temp,Res,RemPct,H,SH",
	  "s#vvAaXOw%-%", "F-000C0B00-0", bat_fields },
	{ DF_ID_CMD, DF_CMD_LEN, "CMD", "QHHHffffLLfB",
	  "TimeUS,CTot,CNum,CId,Prm1,Prm2,Prm3,Prm4,Lat,Lng,Alt,Frame",
	  "s-------DUm-", "F-------GG0-", cmd_fields },
	{ DF_ID_XKF1, DF_XKF1_LEN, "XKF1", "QBccCfffffffccce",
	  "TimeUS,C,Roll,Pitch,Yaw,VN,VE,VD,dPD,PN,PE,PD,GX,GY,GZ,OH",
	  "s#ddhnnnnmmmkkkm", "F-BBB0000000BBBB", xkf1_fields },
	{ DF_ID_XKF3, DF_XKF3_LEN, "XKF3", "QBcccccchhhccff",
	  "TimeUS,C,IVN,IVE,IVD,IPN,IPE,IPD,IMX,IMY,IMZ,IYAW,IVT,RErr,ErSc",
	  "s#nnnmmmGGGdnm-", "F-BBBBBBCCCBB0-", xkf3_fields },
	{ DF_ID_XKF4, DF_XKF4_LEN, "XKF4", "QBcccccfffHBIHb",
	  "TimeUS,C,SV,SP,SH,SM,SVT,errRP,OFN,OFE,FS,TS,SS,GPS,PI",
	  "s#------mm-----", "F-BBBBB-00-----", xkf4_fields },
	/* The five below: ArduPilot 4.6's formats, columns, units and multipliers
	 * (its scaled letters c and e carry a B multiplier too, as ArduPilot's do). */
	{ DF_ID_XKF2, DF_XKF2_LEN, "XKF2", "QBccccchhhhhhfff",
	  "TimeUS,C,AX,AY,AZ,VWN,VWE,MN,ME,MD,MX,MY,MZ,IDX,IDY,IS",
	  "s#---nnGGGGGGoor", "F----BBCCCCCC000", xkf2_fields },
	{ DF_ID_ARSP, DF_ARSP_LEN, "ARSP", "QBffcffBBffB",
	  "TimeUS,I,Airspeed,DiffPress,Temp,RawPress,Offset,U,H,Hp,TR,Pri",
	  "s#nPOPP-----", "F-00B00-----", arsp_fields },
	/* ArduPilot's LogStructure.h layout, Dist in cm (later versions add a
	 * Quality column, "QBCBBb") */
	{ DF_ID_RFND, DF_RFND_LEN, "RFND", "QBCBB", "TimeUS,Instance,Dist,Stat,Orient",
	  "s#m--", "F-B--", rfnd_fields },
	{ DF_ID_VIBE, DF_VIBE_LEN, "VIBE", "QBfffI", "TimeUS,IMU,VibeX,VibeY,VibeZ,Clip",
	  "s#ooo-", "F-000-", vibe_fields },
	{ DF_ID_POWR, DF_POWR_LEN, "POWR", "QffHHB", "TimeUS,Vcc,VServo,Flags,AccFlags,Safety",
	  "svv---", "F00---", powr_fields },
	{ DF_ID_ORGN, DF_ORGN_LEN, "ORGN", "QBLLe", "TimeUS,Type,Lat,Lng,Alt",
	  "s#DUm", "F-GGB", orgn_fields },
};
const size_t df_msg_def_count = sizeof df_msg_defs / sizeof df_msg_defs[0];

const struct df_unit df_units[] = {
	{ '-', "" },
	{ 's', "s" },
	{ 'd', "deg" },
	{ 'D', "deglatitude" },
	{ 'U', "deglongitude" },
	{ 'm', "m" },
	{ 'n', "m/s" },
	{ 'h', "degheading" },
	{ 'S', "satellites" },
	{ 'z', "Hz" },
	{ '%', "%" },
	{ '#', "instance" },
	{ 'b', "B" },
	{ 'E', "rad/s" },
	{ 'o', "m/s/s" },
	{ 'O', "degC" },
	{ 'P', "Pa" },
	{ 'G', "Gauss" },
	{ 'Y', "us" },
	{ 'v', "V" },
	{ 'A', "A" },
	{ 'a', "Ah" },
	{ 'X', "Wh" },
	{ 'w', "Ohm" },
	{ 'k', "deg/s" },
	{ 'r', "rad" },
};
const size_t df_unit_count = sizeof df_units / sizeof df_units[0];

const struct df_mult df_mults[] = {
	{ '-', 0.0 },
	{ '?', 1.0 },
	{ '0', 1.0 },
	{ 'A', 1e-1 },
	{ 'B', 1e-2 },
	{ 'C', 1e-3 },
	{ 'F', 1e-6 },
	{ 'G', 1e-7 },
};
const size_t df_mult_count = sizeof df_mults / sizeof df_mults[0];

/* The four records that describe the others come first, in this order. */
static const uint8_t preamble_types[] = { DF_ID_FMT, DF_ID_UNIT, DF_ID_MULT, DF_ID_FMTU };

const struct df_msg_def *df_msg_def_find(uint8_t type)
{
	for (size_t k = 0; k < df_msg_def_count; k++)
		if (df_msg_defs[k].type == type)
			return &df_msg_defs[k];
	return NULL;
}

size_t df_preamble_len(void)
{
	return sizeof preamble_types * (DF_FMT_LEN + DF_FMTU_LEN) +
	       df_unit_count * DF_UNIT_LEN + df_mult_count * DF_MULT_LEN;
}

int df_pack_announce(uint8_t *buf, size_t cap, uint64_t t_us, const struct df_msg_def *def)
{
	if (!def)
		return -EINVAL;
	if (cap < DF_FMT_LEN + DF_FMTU_LEN)
		return -ENOSPC;
	int n = df_pack_fmt(buf, cap, def->type, def->name, def->format, def->labels);
	if (n < 0)
		return n;
	int m = df_pack_fmtu(buf + n, cap - (size_t)n, t_us, def->type, def->units, def->mults);
	if (m < 0)
		return m;
	return n + m;
}

int df_pack_preamble(uint8_t *buf, size_t cap, uint64_t t_us)
{
	size_t off = 0;
	int n;

	if (cap < df_preamble_len())
		return -ENOSPC;
	/* All FMTs of the describing records before any of them is used. */
	for (size_t k = 0; k < sizeof preamble_types; k++) {
		const struct df_msg_def *def = df_msg_def_find(preamble_types[k]);
		n = df_pack_fmt(buf + off, cap - off, def->type, def->name, def->format,
				def->labels);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	for (size_t k = 0; k < df_unit_count; k++) {
		n = df_pack_unit(buf + off, cap - off, t_us, df_units[k].id, df_units[k].label);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	for (size_t k = 0; k < df_mult_count; k++) {
		n = df_pack_mult(buf + off, cap - off, t_us, df_mults[k].id, df_mults[k].mult);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	for (size_t k = 0; k < sizeof preamble_types; k++) {
		const struct df_msg_def *def = df_msg_def_find(preamble_types[k]);
		n = df_pack_fmtu(buf + off, cap - off, t_us, def->type, def->units, def->mults);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	return (int)off;
}

static int begin(uint8_t *buf, size_t cap, uint8_t type, size_t len, struct df_put *c)
{
	if (cap < len)
		return -ENOSPC;
	c->p = buf;
	df_put_u8(c, DF_HEAD1);
	df_put_u8(c, DF_HEAD2);
	df_put_u8(c, type);
	return 0;
}

int df_pack_parm(uint8_t *buf, size_t cap, const struct df_parm *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_PARM, DF_PARM_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_str(&c, m->name, 16);
	df_put_f32(&c, m->value);
	df_put_f32(&c, m->default_value);
	return (int)DF_PARM_LEN;
}

int df_pack_msg(uint8_t *buf, size_t cap, const struct df_msg *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_MSG, DF_MSG_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_str(&c, m->text, 64);
	return (int)DF_MSG_LEN;
}

int df_pack_mode(uint8_t *buf, size_t cap, const struct df_mode *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_MODE, DF_MODE_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u8(&c, m->mode);
	df_put_u8(&c, m->mode_num);
	df_put_u8(&c, m->reason);
	return (int)DF_MODE_LEN;
}

int df_pack_ev(uint8_t *buf, size_t cap, const struct df_ev *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_EV, DF_EV_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u8(&c, m->id);
	return (int)DF_EV_LEN;
}

int df_pack_err(uint8_t *buf, size_t cap, const struct df_err *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_ERR, DF_ERR_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u8(&c, m->subsys);
	df_put_u8(&c, m->code);
	return (int)DF_ERR_LEN;
}

int df_pack_pm(uint8_t *buf, size_t cap, const struct df_pm *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_PM, DF_PM_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u16(&c, m->loop_rate_hz);
	df_put_u16(&c, m->n_long);
	df_put_u16(&c, m->n_loop);
	df_put_u32(&c, m->max_t_us);
	df_put_u32(&c, m->min_t_us);
	df_put_u32(&c, m->avg_t_us);
	df_put_u32(&c, m->log_drop);
	df_put_u16(&c, m->load_permille);
	return (int)DF_PM_LEN;
}

int df_pack_att(uint8_t *buf, size_t cap, const struct df_att *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_ATT, DF_ATT_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_i16(&c, m->des_roll_cdeg);
	df_put_i16(&c, m->roll_cdeg);
	df_put_i16(&c, m->des_pitch_cdeg);
	df_put_i16(&c, m->pitch_cdeg);
	df_put_u16(&c, m->des_yaw_cdeg);
	df_put_u16(&c, m->yaw_cdeg);
	df_put_u16(&c, m->err_rp_x100);
	df_put_u16(&c, m->err_yaw_x100);
	return (int)DF_ATT_LEN;
}

int df_pack_gps(uint8_t *buf, size_t cap, const struct df_gps *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_GPS, DF_GPS_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u8(&c, m->instance);
	df_put_u8(&c, m->status);
	df_put_u32(&c, m->week_ms);
	df_put_u16(&c, m->week);
	df_put_u8(&c, m->num_sats);
	df_put_i16(&c, m->hdop_x100);
	df_put_i32(&c, m->lat_1e7);
	df_put_i32(&c, m->lng_1e7);
	df_put_i32(&c, m->alt_msl_cm);
	df_put_f32(&c, m->ground_speed_m_s);
	df_put_f32(&c, m->course_deg);
	df_put_f32(&c, m->vel_down_m_s);
	df_put_f32(&c, m->yaw_deg);
	df_put_u8(&c, m->used);
	return (int)DF_GPS_LEN;
}

int df_pack_struct(uint8_t *buf, size_t cap, const struct df_msg_def *def, const void *m)
{
	if (!def || !def->fields || !m)
		return -EINVAL;
	if (cap < def->length)
		return -ENOSPC;
	const unsigned char *base = m;
	struct df_put c;
	begin(buf, cap, def->type, def->length, &c);
	for (unsigned k = 0; def->format[k]; k++) {
		const unsigned char *p = base + def->fields[k].off;
		size_t n = df_letter_size(def->format[k]);
		switch (def->format[k]) {
		case 'n': case 'N': case 'Z':
			df_put_str(&c, (const char *)p, n < def->fields[k].size ? n : def->fields[k].size);
			if (def->fields[k].size < n) {
				memset(c.p, 0, n - def->fields[k].size);
				c.p += n - def->fields[k].size;
			}
			break;
		case 'b': case 'B': case 'M':
			df_put_u8(&c, *p);
			break;
		default: {
			/* Any alignment and host order: copy the member, store little-endian. */
			uint64_t v64;
			uint32_t v32;
			uint16_t v16;
			if (n == 8) {
				memcpy(&v64, p, 8);
				df_put_u64(&c, v64);
			} else if (n == 4) {
				memcpy(&v32, p, 4);
				df_put_u32(&c, v32);
			} else {
				memcpy(&v16, p, 2);
				df_put_u16(&c, v16);
			}
			break;
		}
		}
	}
	return (int)def->length;
}

#define TYPED_PACKER(fn, id, type)                                                  \
	int fn(uint8_t *buf, size_t cap, const type *m)                           \
	{                                                                           \
		return df_pack_struct(buf, cap, df_msg_def_find(id), m);            \
	}
TYPED_PACKER(df_pack_imu, DF_ID_IMU, struct df_imu)
TYPED_PACKER(df_pack_baro, DF_ID_BARO, struct df_baro)
TYPED_PACKER(df_pack_mag, DF_ID_MAG, struct df_mag)
TYPED_PACKER(df_pack_pos, DF_ID_POS, struct df_pos)
TYPED_PACKER(df_pack_ctun, DF_ID_CTUN, struct df_ctun)
TYPED_PACKER(df_pack_ntun, DF_ID_NTUN, struct df_ntun)
TYPED_PACKER(df_pack_tecs, DF_ID_TECS, struct df_tecs)
TYPED_PACKER(df_pack_rcin, DF_ID_RCIN, struct df_rc)
TYPED_PACKER(df_pack_rcou, DF_ID_RCOU, struct df_rc)
TYPED_PACKER(df_pack_bat, DF_ID_BAT, struct df_bat)
TYPED_PACKER(df_pack_cmd, DF_ID_CMD, struct df_cmd)
TYPED_PACKER(df_pack_xkf1, DF_ID_XKF1, struct df_xkf1)
TYPED_PACKER(df_pack_xkf3, DF_ID_XKF3, struct df_xkf3)
TYPED_PACKER(df_pack_xkf4, DF_ID_XKF4, struct df_xkf4)
TYPED_PACKER(df_pack_dsf, DF_ID_DSF, struct df_dsf)
TYPED_PACKER(df_pack_xkf2, DF_ID_XKF2, struct df_xkf2)
TYPED_PACKER(df_pack_arsp, DF_ID_ARSP, struct df_arsp)
TYPED_PACKER(df_pack_vibe, DF_ID_VIBE, struct df_vibe)
TYPED_PACKER(df_pack_rfnd, DF_ID_RFND, struct df_rfnd)
TYPED_PACKER(df_pack_late, DF_ID_LATE, struct df_late)
TYPED_PACKER(df_pack_pmt, DF_ID_PMT, struct df_pmt)
TYPED_PACKER(df_pack_powr, DF_ID_POWR, struct df_powr)
TYPED_PACKER(df_pack_orgn, DF_ID_ORGN, struct df_orgn)

// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The parameter table, sorted by name (param_init asserts it). Names, meanings
 * and defaults follow ArduPlane where the meaning is the same, so parameter
 * files and ground-station screens work. Modules add their rows here as they
 * arrive; a module finds its rows with param_find() at start-up.
 */
#include "param/param.h"
#include "param/param_table.h"

const struct param_def param_defs[] = {
	{ "ARMING_CHECK", PARAM_INT32, 1, 0, 8388607, "",
	  "Pre-arm checks: 0 none, 1 all, else a bit per check" },
	{ "ARMING_REQUIRE", PARAM_INT8, 1, 0, 2, "",
	  "1: outputs stay off until armed (throttle at minimum)" },
	/*
	 * Battery monitor (src/daemon/board_io.c): volts = ADC volts * VOLT_MULT;
	 * amps = (ADC volts - AMP_OFFSET) * AMP_PERVLT. A multiplier left at 0
	 * takes the board's figure (Navio+: 11.3 V/V, 17 A/V).
	 */
	{ "BATT_AMP_OFFSET", PARAM_FLOAT, 0, -5, 5, "V",
	  "Battery current sensor output at 0 A" },
	{ "BATT_AMP_PERVLT", PARAM_FLOAT, 0, 0, 1000, "A/V",
	  "Battery current per volt of sensor output; 0: the board's figure" },
	{ "BATT_CAPACITY", PARAM_INT32, 3300, 0, 1000000, "mAh",
	  "Battery capacity, for the remaining charge" },
	{ "BATT_VOLT_MULT", PARAM_FLOAT, 0, 0, 1000, "",
	  "Battery voltage per volt at the ADC; 0: the board's figure" },
	{ "FS_GCS_ENABL", PARAM_INT8, 0, 0, 2, "",
	  "Ground-station failsafe: 0 off, 1 heartbeat lost, 2 heartbeat or telemetry lost" },
	{ "SCHED_LOOP_RATE", PARAM_INT16, 400, 50, 400, "Hz",
	  "Main-loop rate (takes effect at restart)" },
	{ "SR0_EXTRA1", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 0: extra1 stream rate" },
	{ "SR0_EXTRA2", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 0: extra2 stream rate" },
	{ "SR0_EXTRA3", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 0: extra3 stream rate" },
	{ "SR0_EXT_STAT", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 0: ext stat stream rate" },
	{ "SR0_PARAMS", PARAM_INT16, 10, 0, 50, "Hz",
	  "Telemetry link 0: params stream rate" },
	{ "SR0_POSITION", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 0: position stream rate" },
	{ "SR0_RAW_CTRL", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 0: raw ctrl stream rate" },
	{ "SR0_RAW_SENS", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 0: raw sens stream rate" },
	{ "SR0_RC_CHAN", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 0: rc chan stream rate" },
	{ "SR1_EXTRA1", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 1: extra1 stream rate" },
	{ "SR1_EXTRA2", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 1: extra2 stream rate" },
	{ "SR1_EXTRA3", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 1: extra3 stream rate" },
	{ "SR1_EXT_STAT", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 1: ext stat stream rate" },
	{ "SR1_PARAMS", PARAM_INT16, 10, 0, 50, "Hz",
	  "Telemetry link 1: params stream rate" },
	{ "SR1_POSITION", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 1: position stream rate" },
	{ "SR1_RAW_CTRL", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 1: raw ctrl stream rate" },
	{ "SR1_RAW_SENS", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 1: raw sens stream rate" },
	{ "SR1_RC_CHAN", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 1: rc chan stream rate" },
	{ "SR2_EXTRA1", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 2: extra1 stream rate" },
	{ "SR2_EXTRA2", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 2: extra2 stream rate" },
	{ "SR2_EXTRA3", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 2: extra3 stream rate" },
	{ "SR2_EXT_STAT", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 2: ext stat stream rate" },
	{ "SR2_PARAMS", PARAM_INT16, 10, 0, 50, "Hz",
	  "Telemetry link 2: params stream rate" },
	{ "SR2_POSITION", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 2: position stream rate" },
	{ "SR2_RAW_CTRL", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 2: raw ctrl stream rate" },
	{ "SR2_RAW_SENS", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 2: raw sens stream rate" },
	{ "SR2_RC_CHAN", PARAM_INT16, 1, 0, 50, "Hz",
	  "Telemetry link 2: rc chan stream rate" },
	{ "SYSID_ENFORCE", PARAM_INT8, 0, 0, 1, "",
	  "1: accept commands only from SYSID_MYGCS" },
	{ "SYSID_MYGCS", PARAM_INT16, 255, 1, 255, "",
	  "System id of the ground station in charge" },
	{ "SYSID_THISMAV", PARAM_INT16, 1, 1, 255, "",
	  "MAVLink system id of this aircraft" },
};

const unsigned int param_count = sizeof(param_defs) / sizeof(param_defs[0]);

_Static_assert(sizeof(param_defs) / sizeof(param_defs[0]) <= PARAM_TABLE_MAX, "PARAM_TABLE_MAX");

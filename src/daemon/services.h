/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the daemon runs on its threads besides the board's drivers: the
 * parameter store and its persistence, the MAVLink links and the
 * ground-station services. Opened by the leader before the threads start.
 */
#ifndef FULMAR_DAEMON_SERVICES_H
#define FULMAR_DAEMON_SERVICES_H

#include <stddef.h>

#include "daemon/config.h"
#include "daemon/scheduler.h"

/* fulmard --load-params, how many times (as ArduPilot SITL's --defaults list) */
#define SERVICES_LOAD_PARAMS_MAX 8
/*
 * Parameters: defaults, then the saved file in the state directory, then the
 * n_load NAME,VALUE files from the command line in order (a later file's value
 * wins), saved at once. A bad file stops the load and nothing is saved (the
 * daemon does not start). Returns 0, or -EINVAL (a file is bad) or another
 * -errno (it cannot be read) with one line in err.
 */
int services_params(const struct config *cfg, const char *const *load_params, int n_load,
		    char *err, size_t err_len);
/*
 * The mission: the saved one from the state directory, then load_mission (a
 * QGC WPL 110 file; NULL for none), saved at once. Same returns.
 */
int services_mission(const struct config *cfg, const char *load_mission, char *err,
		     size_t err_len);
/*
 * The parameters (or the mission) as they stand after services_params (or
 * services_mission), written to path as NAME,VALUE (or QGC WPL 110). Returns 0
 * or -errno with one line in err.
 */
int services_save_params(const char *path, char *err, size_t err_len);
int services_save_mission(const char *path, char *err, size_t err_len);
/* Opens the MAVLink links. Returns 0 or -errno with one line naming the link in err. */
int services_links(const struct config *cfg, char *err, size_t err_len);
struct sensor_hub;
struct board_io;
/*
 * Registers the tasks: links on the uart thread, GCS on main, saves on io.
 * hub: the sensors whose freshness SYS_STATUS reports (may be NULL: none);
 * bio: the board's drivers, whose own account of their devices it takes in
 * (NULL in HIL).
 */
int services_add_tasks(struct sched *s, const struct sensor_hub *hub, const struct board_io *bio);
struct gcs;
struct vehicle;
struct mission;
/* The vehicle, the live mission and the ground-station state the flight shares (main thread). */
void services_flight_refs(struct gcs **gcs, struct vehicle **vehicle, struct mission **mission);
/* Any thread: enum gcs_exit_request, what a ground station asked of the daemon. */
int services_exit_request(void);
/* After the threads have stopped: a last save, then the links close. */
void services_close(void);

#endif

// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "sensors"
#include "daemon/sensors.h"

#include <assert.h>
#include <errno.h>
#include <math.h>

#include "util/log.h"

static const size_t kind_size[SENSOR_KIND_COUNT] = {
	[SENSOR_BARO] = sizeof(struct baro_sample),
	[SENSOR_MAG] = sizeof(struct mag_sample),
	[SENSOR_AIRSPEED] = sizeof(struct airspeed_sample),
	[SENSOR_GPS] = sizeof(struct gps_fix),
	[SENSOR_BATTERY] = sizeof(struct battery_sample),
	[SENSOR_RC] = sizeof(struct rc_frame),
	[SENSOR_RANGE] = sizeof(struct range_sample),
};

const char *sensor_kind_name(enum sensor_kind k)
{
	switch (k) {
	case SENSOR_IMU: return "IMU";
	case SENSOR_BARO: return "barometer";
	case SENSOR_MAG: return "compass";
	case SENSOR_AIRSPEED: return "airspeed";
	case SENSOR_GPS: return "GPS";
	case SENSOR_BATTERY: return "battery monitor";
	case SENSOR_RC: return "RC input";
	case SENSOR_RANGE: return "rangefinder";
	case SENSOR_KIND_COUNT: break;
	}
	return "?";
}

void sensors_init(struct sensor_hub *h, uint32_t imu_rate_hz, uint32_t main_rate_hz,
		  void (*pace)(void *ctx), void *pace_ctx)
{
	assert(main_rate_hz >= 1 && main_rate_hz <= 1000000);
	*h = (struct sensor_hub){ .imu_rate_hz = imu_rate_hz, .main_rate_hz = main_rate_hz,
				  .pace_next_us = 1000000u / main_rate_hz,
				  .pace = pace, .pace_ctx = pace_ctx };
	ring_init(&h->imu, h->imu_storage, SENSORS_IMU_RING, sizeof(struct imu_sample));
	topic_init(&h->topic[SENSOR_BARO], h->baro_words, kind_size[SENSOR_BARO]);
	topic_init(&h->topic[SENSOR_MAG], h->mag_words, kind_size[SENSOR_MAG]);
	topic_init(&h->topic[SENSOR_AIRSPEED], h->airspeed_words, kind_size[SENSOR_AIRSPEED]);
	topic_init(&h->topic[SENSOR_GPS], h->gps_words, kind_size[SENSOR_GPS]);
	topic_init(&h->topic[SENSOR_BATTERY], h->battery_words, kind_size[SENSOR_BATTERY]);
	topic_init(&h->topic[SENSOR_RC], h->rc_words, kind_size[SENSOR_RC]);
	topic_init(&h->topic[SENSOR_RANGE], h->range_words, kind_size[SENSOR_RANGE]);
	topic_init(&h->clock, h->clock_words, sizeof(struct sensor_clock));
	for (int i = 0; i < SENSOR_KIND_COUNT; i++) {
		atomic_init(&h->count[i].accepted, 0);
		atomic_init(&h->count[i].rejected, 0);
	}
}

static bool finite3(const float v[3])
{
	return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* Counts the verdict; says the first refusal of a run and the recovery after it. */
static int verdict(struct sensor_hub *h, enum sensor_kind k, const char *why)
{
	struct sensor_counts *c = &h->count[k];
	if (why) {
		atomic_fetch_add_explicit(&c->rejected, 1, memory_order_relaxed);
		if (!h->rejecting[k])
			log_warn("%s sample refused: %s", sensor_kind_name(k), why);
		h->rejecting[k] = true;
		return -EINVAL;
	}
	atomic_fetch_add_explicit(&c->accepted, 1, memory_order_relaxed);
	if (h->rejecting[k]) {
		log_info("%s samples good again (%llu refused so far)", sensor_kind_name(k),
			 (unsigned long long)atomic_load_explicit(&c->rejected,
								  memory_order_relaxed));
		h->rejecting[k] = false;
	}
	return 0;
}

int sensors_push_imu(struct sensor_hub *h, const struct imu_sample *s)
{
	const char *why = NULL;
	if (!finite3(s->accel_m_s2) || !finite3(s->gyro_rad_s))
		why = "not a finite number";
	int rc = verdict(h, SENSOR_IMU, why);
	if (rc)
		return rc;
	ring_write(&h->imu, s, 1);  /* full: dropped and counted by the ring */
	if (s->t_us >= h->pace_next_us) {
		uint64_t period = 1000000u / h->main_rate_hz;
		h->pace_next_us = (s->t_us / period + 1) * period;
		if (h->pace)
			h->pace(h->pace_ctx);
	}
	return 0;
}

static int publish(struct sensor_hub *h, enum sensor_kind k, const void *s, const char *why)
{
	int rc = verdict(h, k, why);
	if (rc == 0)
		topic_publish(&h->topic[k], s);
	return rc;
}

int sensors_publish_baro(struct sensor_hub *h, const struct baro_sample *s)
{
	/* 1 kPa is the air at 30 km; 120 kPa is more than any weather at sea level. */
	const char *why = !isfinite(s->pressure_pa) || !isfinite(s->temp_c) ? "not a finite number" :
			  s->pressure_pa < 1000.0f || s->pressure_pa > 120000.0f ?
			  "pressure outside 1..120 kPa" : NULL;
	return publish(h, SENSOR_BARO, s, why);
}

int sensors_publish_mag(struct sensor_hub *h, const struct mag_sample *s)
{
	return publish(h, SENSOR_MAG, s, finite3(s->field_ut) ? NULL : "not a finite number");
}

int sensors_publish_airspeed(struct sensor_hub *h, const struct airspeed_sample *s)
{
	const char *why = !isfinite(s->diff_pressure_pa) || !isfinite(s->temp_c) ?
			  "not a finite number" : NULL;
	return publish(h, SENSOR_AIRSPEED, s, why);
}

int sensors_publish_gps(struct sensor_hub *h, const struct gps_fix *s)
{
	const char *why = NULL;
	if (s->fix < GPS_FIX_NONE || s->fix > GPS_FIX_3D)
		why = "unknown fix type";
	else if (s->fix >= GPS_FIX_2D &&
		 (!isfinite(s->lat_deg) || !isfinite(s->lon_deg) || !isfinite(s->alt_msl_m) ||
		  !finite3(s->vel_ned_m_s)))
		why = "position or velocity not a finite number";
	else if (s->fix >= GPS_FIX_2D && (fabs(s->lat_deg) > 90.0 || fabs(s->lon_deg) > 180.0))
		why = "latitude or longitude out of range";
	else if (s->fix >= GPS_FIX_2D && (s->h_acc_m < 0.0f || s->v_acc_m < 0.0f))
		why = "negative accuracy";
	return publish(h, SENSOR_GPS, s, why);
}

int sensors_publish_battery(struct sensor_hub *h, const struct battery_sample *s)
{
	const char *why = !isfinite(s->voltage_v) || s->voltage_v < 0.0f ?
			  "voltage not a number of volts" : NULL;
	return publish(h, SENSOR_BATTERY, s, why);
}

int sensors_publish_rc(struct sensor_hub *h, const struct rc_frame *s)
{
	const char *why = NULL;
	if (s->channel_count < 1 || s->channel_count > RC_MAX_CHANNELS)
		why = "channel count out of range";
	for (unsigned int i = 0; !why && i < s->channel_count; i++)
		if (s->channels_us[i] < RC_CHANNEL_MIN_US || s->channels_us[i] > RC_CHANNEL_MAX_US)
			why = "a channel outside 800..2200 us";
	return publish(h, SENSOR_RC, s, why);
}

/* No rangefinder fulmar drives reaches beyond a few hundred metres (SF11/C: 120 m). */
#define RANGE_MAX_M 1000.0f

int sensors_publish_range(struct sensor_hub *h, const struct range_sample *s)
{
	const char *why = NULL;
	if (s->reading != RANGE_READING_OK && s->reading != RANGE_READING_NO_RETURN)
		why = "unknown reading";
	else if (!isfinite(s->distance_m) || !isfinite(s->min_m) || !isfinite(s->max_m))
		why = "not a finite number";
	else if (s->distance_m < 0.0f || s->distance_m > RANGE_MAX_M || s->min_m < 0.0f ||
		 s->max_m < 0.0f)
		why = "distance outside 0..1000 m";
	else if (s->reading == RANGE_READING_NO_RETURN && s->distance_m != 0.0f)
		why = "a distance with no return";
	else if (s->quality_pct < -1 || s->quality_pct > 100)
		why = "signal quality outside -1..100";
	return publish(h, SENSOR_RANGE, s, why);
}

void sensors_publish_clock(struct sensor_hub *h, const struct sensor_clock *c)
{
	topic_publish(&h->clock, c);
}

void sensors_now(const struct sensor_hub *h, uint64_t mono_us, uint64_t *t_us, uint64_t *source_us)
{
	struct sensor_clock c;
	if (!topic_read(&h->clock, &c)) {
		*t_us = *source_us = mono_us;
		return;
	}
	uint64_t since = mono_us > c.arrival_us ? mono_us - c.arrival_us : 0;
	*t_us = c.t_us + since;
	*source_us = c.source_us;
}

uint64_t sensors_paused_us(const struct sensor_hub *h)
{
	struct sensor_clock c;
	return topic_read(&h->clock, &c) ? c.paused_us : 0;
}

size_t sensors_read_imu(struct sensor_hub *h, struct imu_sample *out, size_t n)
{
	return ring_read(&h->imu, out, n);
}

uint32_t sensors_latest(const struct sensor_hub *h, enum sensor_kind k, void *out)
{
	assert(k > SENSOR_IMU && k < SENSOR_KIND_COUNT);
	return topic_read(&h->topic[k], out);
}

uint32_t sensors_generation(const struct sensor_hub *h, enum sensor_kind k)
{
	assert(k > SENSOR_IMU && k < SENSOR_KIND_COUNT);
	return topic_generation(&h->topic[k]);
}

uint64_t sensors_accepted(const struct sensor_hub *h, enum sensor_kind k)
{
	return atomic_load_explicit(&h->count[k].accepted, memory_order_relaxed);
}

uint64_t sensors_rejected(const struct sensor_hub *h, enum sensor_kind k)
{
	return atomic_load_explicit(&h->count[k].rejected, memory_order_relaxed);
}

uint64_t sensors_imu_dropped(const struct sensor_hub *h)
{
	return ring_dropped(&h->imu);
}

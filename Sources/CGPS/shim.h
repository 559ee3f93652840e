#ifndef WALKSCAPE_CGPS_SHIM_H
#define WALKSCAPE_CGPS_SHIM_H
#include <gps.h>

/* gps_data_t.set is a 64-bit mask of macros Swift cannot import (they are
 * built from shifts); expose the ones the gpsd source reads. */
static const gps_mask_t WS_ONLINE_SET = ONLINE_SET;
static const gps_mask_t WS_TIME_SET = TIME_SET;
static const gps_mask_t WS_LATLON_SET = LATLON_SET;
static const gps_mask_t WS_ALTITUDE_SET = ALTITUDE_SET;
static const gps_mask_t WS_SPEED_SET = SPEED_SET;
static const gps_mask_t WS_TRACK_SET = TRACK_SET;
static const gps_mask_t WS_MODE_SET = MODE_SET;
static const gps_mask_t WS_STATUS_SET = STATUS_SET;
static const gps_mask_t WS_DOP_SET = DOP_SET;
static const gps_mask_t WS_HERR_SET = HERR_SET;
static const gps_mask_t WS_SATELLITE_SET = SATELLITE_SET;
static const gps_mask_t WS_VERSION_SET = VERSION_SET;
static const gps_mask_t WS_ERROR_SET = ERROR_SET;
static const gps_mask_t WS_PACKET_SET = PACKET_SET;
static const gps_mask_t WS_DEVICE_SET = DEVICE_SET;
static const gps_mask_t WS_DEVICELIST_SET = DEVICELIST_SET;

/* JSON reports, and the receiver's NMEA sentences beside them (gpsd's own
 * for a receiver in a binary protocol, which the walk leaves aside), from
 * which the walk makes an NMEA receiver's fixes as the preview makes them
 * from a recorded trace. */
static inline int ws_gps_watch_json(struct gps_data_t *data) {
    return gps_stream(data, WATCH_ENABLE | WATCH_JSON | WATCH_NMEA, NULL);
}
static inline int ws_gps_unwatch(struct gps_data_t *data) {
    return gps_stream(data, WATCH_DISABLE, NULL);
}
#endif

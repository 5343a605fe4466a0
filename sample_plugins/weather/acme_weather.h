/*
 * acme_weather.h: the API of the weather sample plugin, "acme.weather" version 1.
 * Id: tools/cuttle-hash acme.weather. Frozen: a change would be acme_weather_api_v2.
 */
#ifndef ACME_WEATHER_H
#define ACME_WEATHER_H

#include "ct_types.h"

#define ACME_WEATHER_API 0x04559dd8u /* "acme.weather" */

typedef struct acme_weather_api_v1 {
    /* The forecast for `city` ("rain" or "sun"; the same city always gets the same answer). */
    const char *(*forecast)(const char *city);
    /* Forecasts made since the plugin was loaded; the count survives hot reloads. */
    uint64_t (*forecasts)(void);
} acme_weather_api_v1;

#endif

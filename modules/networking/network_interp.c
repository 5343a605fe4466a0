/* network_interp.c: snapshots of a replica and the pose between them (network_interp.h). */
#include "network_interp.h"

#include <math.h>
#include <string.h>

static const net_snapshot_t *at(const net_snapshots_t *r, uint32_t i)
{
    return &r->s[(r->head + i) % NET_SNAPSHOTS];
}

void net_snapshots_add(net_snapshots_t *r, double time, const float pose[7])
{
    if (r->count && time <= at(r, r->count - 1)->time) {
        net_snapshot_t *newest = &r->s[(r->head + r->count - 1) % NET_SNAPSHOTS];
        memcpy(newest->pose, pose, sizeof newest->pose);
        return;
    }
    if (r->count == NET_SNAPSHOTS) {
        r->head = (r->head + 1) % NET_SNAPSHOTS;
        r->count--;
    }
    net_snapshot_t *s = &r->s[(r->head + r->count++) % NET_SNAPSHOTS];
    s->time = time;
    memcpy(s->pose, pose, sizeof s->pose);
}

static void blend(const float *a, const float *b, double t, float *out)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)(a[k] + (b[k] - a[k]) * t);
    /* Rotations: the shorter way round, then normalised. */
    const float dot = a[3] * b[3] + a[4] * b[4] + a[5] * b[5] + a[6] * b[6];
    const float sign = dot < 0 ? -1.0f : 1.0f;
    double len = 0;
    for (int k = 3; k < 7; k++) {
        out[k] = (float)(a[k] + (sign * b[k] - a[k]) * t);
        len += (double)out[k] * out[k];
    }
    if (len > 0)
        for (int k = 3; k < 7; k++)
            out[k] = (float)(out[k] / sqrt(len));
}

bool net_snapshots_sample(const net_snapshots_t *r, double time, double max_extrapolation,
                          float out[7], bool *extrapolated)
{
    *extrapolated = false;
    if (!r->count)
        return false;
    const net_snapshot_t *first = at(r, 0), *last = at(r, r->count - 1);
    if (r->count == 1 || time <= first->time) {
        memcpy(out, (time <= first->time ? first : last)->pose, 7 * sizeof *out);
        return true;
    }
    if (time >= last->time) {
        /* Updates come only when something changed, so a late one may mean "stopped": go on at
         * most one snapshot interval (and max_extrapolation), and once past max_extrapolation
         * settle on the newest state received. */
        const net_snapshot_t *prev = at(r, r->count - 2);
        const double span = last->time - prev->time, ahead = time - last->time;
        memcpy(out, last->pose, 7 * sizeof *out);
        if (span > 0 && ahead > 0 && ahead <= max_extrapolation) {
            const double go = ahead < span ? ahead : span;
            for (int k = 0; k < 3; k++)
                out[k] = (float)(last->pose[k] + (last->pose[k] - prev->pose[k]) / span * go);
            *extrapolated = true;
        }
        return true;
    }
    for (uint32_t i = 0; i + 1 < r->count; i++) {
        const net_snapshot_t *a = at(r, i), *b = at(r, i + 1);
        if (time >= a->time && time < b->time) {
            blend(a->pose, b->pose, (time - a->time) / (b->time - a->time), out);
            return true;
        }
    }
    memcpy(out, last->pose, 7 * sizeof *out);
    return true;
}

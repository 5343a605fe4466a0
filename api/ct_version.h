/*
 * ct_version.h: the version of the SDK these headers are, `major.minor.patch`.
 *
 * The SDK is the set of headers in api/. A release publishes every struct and enum in them as
 * they are: from then on those never change size, layout, field types or enumerator values
 * (tests/abi checks each release's manifest, tests/abi/releases/<version>.txt, against the
 * headers). A release bumps the minor version while the major is 0; new structs (a
 * ct_x_api_vN+1 next to vN) only ever add.
 *
 * The kernel and modules report the version they were built with; a plugin may compare
 * CT_SDK_VERSION (built from the three numbers) to decide which headers it was built against.
 */
#ifndef CT_VERSION_H
#define CT_VERSION_H

#define CT_SDK_VERSION_MAJOR 0
#define CT_SDK_VERSION_MINOR 2
#define CT_SDK_VERSION_PATCH 0
#define CT_SDK_VERSION_STRING "0.2.0"

/* The three numbers in one comparable integer: 0x00MMmmpp. */
#define CT_SDK_VERSION                                                                             \
    ((CT_SDK_VERSION_MAJOR << 16) | (CT_SDK_VERSION_MINOR << 8) | CT_SDK_VERSION_PATCH)

#endif

/*
 * input_gamepad.c: the gamepad source, through the Linux joystick interface (linux/joystick.h).
 * Buttons and axes are numbered as the xpad driver numbers an Xbox-style pad; the hat (axes 6, 7)
 * becomes the four d-pad buttons. The device is opened non-blocking at start and read at every
 * frame; a path may also name a file or FIFO of struct js_event records (what the tests write).
 */
#include "input_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/joystick.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_DEVICE "/dev/input/js0"

static const char *const button_names[] = {
    "gamepad:a",    "gamepad:b",     "gamepad:x",     "gamepad:y",  "gamepad:lb", "gamepad:rb",
    "gamepad:back", "gamepad:start", "gamepad:guide", "gamepad:ls", "gamepad:rs",
};
static const char *const axis_names[] = {
    "gamepad:left_x",  "gamepad:left_y",  "gamepad:lt",
    "gamepad:right_x", "gamepad:right_y", "gamepad:rt",
};

void input__gamepad_open(const char *path)
{
    input__state *s = input__m.state;
    s->gamepad_fd = -1;
    if (path && !strcmp(path, "none"))
        return;
    const char *p = path ? path : DEFAULT_DEVICE;
    const int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (path) /* asked for by name: say why not; the default device is often absent */
            INPUT_LOG(CT_LOG_WARNING, "--gamepad %s: %s; no gamepad input", path, strerror(errno));
        return;
    }
    s->gamepad_fd = fd;
    snprintf(s->gamepad_path, sizeof s->gamepad_path, "%s", p);
    INPUT_LOG(CT_LOG_INFO, "gamepad: reading %s", p);
}

void input__gamepad_close(void)
{
    input__state *s = input__m.state;
    if (s->gamepad_fd >= 0)
        close(s->gamepad_fd);
    s->gamepad_fd = -1;
}

/* The hat as two pairs of buttons: -32767 presses the first, +32767 the second, 0 releases both. */
static void hat(int value, const char *minus, const char *plus)
{
    const uint32_t m = input__api_v1.control(minus), p = input__api_v1.control(plus);
    input__emit(&(ct_input_event_t){.type = value < 0 ? CT_INPUT_DOWN : CT_INPUT_UP, .control = m});
    input__emit(&(ct_input_event_t){.type = value > 0 ? CT_INPUT_DOWN : CT_INPUT_UP, .control = p});
}

static void apply(const struct js_event *js)
{
    const uint8_t type = js->type & (uint8_t)~JS_EVENT_INIT;
    if (type == JS_EVENT_BUTTON && js->number < sizeof button_names / sizeof button_names[0]) {
        input__emit(
            &(ct_input_event_t){.type = js->value ? CT_INPUT_DOWN : CT_INPUT_UP,
                                .control = input__api_v1.control(button_names[js->number])});
    } else if (type == JS_EVENT_AXIS && js->number < sizeof axis_names / sizeof axis_names[0]) {
        const int v = js->value < -32767 ? -32767 : js->value;
        input__emit(&(ct_input_event_t){.type = CT_INPUT_AXIS,
                                        .control = input__api_v1.control(axis_names[js->number]),
                                        .value = v});
    } else if (type == JS_EVENT_AXIS && js->number == 6) {
        hat(js->value, "gamepad:dpad_left", "gamepad:dpad_right");
    } else if (type == JS_EVENT_AXIS && js->number == 7) {
        hat(js->value, "gamepad:dpad_up", "gamepad:dpad_down");
    }
}

void input__gamepad_poll(void)
{
    input__state *s = input__m.state;
    if (s->gamepad_fd < 0)
        return;
    struct js_event batch[64];
    for (;;) {
        const ssize_t n = read(s->gamepad_fd, batch, sizeof batch);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0 && errno != EAGAIN) {
                INPUT_LOG(CT_LOG_WARNING, "gamepad %s: %s; no more gamepad input", s->gamepad_path,
                          strerror(errno));
                input__gamepad_close();
            }
            return;
        }
        /* A partial record at the end of a file is dropped (a device always gives whole ones). */
        for (size_t i = 0; i < (size_t)n / sizeof batch[0]; i++)
            apply(&batch[i]);
        if ((size_t)n < sizeof batch)
            return;
    }
}

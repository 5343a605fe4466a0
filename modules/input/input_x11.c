/*
 * input_x11.c: the X11 window source. The module opens its own connection to the display and
 * selects input on the window the renderer made (X lets every client select events on any window;
 * only button presses are exclusive, and the renderer selects none), so the renderer's connection
 * and this one never share a queue or a thread.
 */
#include "input_internal.h"

#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <string.h>

#define DPY(x) ((Display *)(x)->display)

static const long event_mask = KeyPressMask | KeyReleaseMask | ButtonPressMask | ButtonReleaseMask |
                               PointerMotionMask | FocusChangeMask | StructureNotifyMask;

static void emit_up(void *ud, const ct_input_event_t *e)
{
    (void)ud;
    input__emit(e);
}

int input__x11_attach(input__x11 *x, unsigned long window)
{
    if (x->display)
        input__x11_detach(x, x->window);
    Display *d = XOpenDisplay(NULL);
    if (!d) {
        INPUT_LOG(CT_LOG_ERROR, "attach_x11: the display '%s' does not open; no window input",
                  XDisplayName(NULL));
        return CT_ERR_IO;
    }
    *x = (input__x11){.display = d, .window = window};
    /* Held keys send one press and one release, not a release/press pair per repeat. */
    XkbSetDetectableAutoRepeat(d, True, NULL);
    XSelectInput(d, (Window)window, event_mask);
    XWindowAttributes wa;
    if (XGetWindowAttributes(d, (Window)window, &wa))
        x->width = wa.width, x->height = wa.height;
    XFlush(d);
    INPUT_LOG(CT_LOG_INFO, "listening to window 0x%lx (%dx%d) on display '%s'", window, x->width,
              x->height, XDisplayName(NULL));
    if (input__m.state->capture)
        input__x11_set_capture(x, true);
    return 0;
}

void input__x11_detach(input__x11 *x, unsigned long window)
{
    if (!x->display || x->window != window)
        return;
    Display *d = DPY(x);
    if (x->grabbed)
        XUngrabPointer(d, CurrentTime);
    if (x->blank_cursor)
        XFreeCursor(d, (Cursor)x->blank_cursor);
    XCloseDisplay(d);
    *x = (input__x11){0};
}

/* An invisible cursor for capture: a 1x1 pixmap with an empty mask. */
static Cursor blank_cursor(input__x11 *x)
{
    if (!x->blank_cursor) {
        Display *d = DPY(x);
        static const char bits[1] = {0};
        Pixmap p = XCreateBitmapFromData(d, (Window)x->window, bits, 1, 1);
        XColor black = {0};
        x->blank_cursor = XCreatePixmapCursor(d, p, p, &black, &black, 0, 0);
        XFreePixmap(d, p);
    }
    return (Cursor)x->blank_cursor;
}

static void warp_to_centre(input__x11 *x)
{
    XWarpPointer(DPY(x), None, (Window)x->window, 0, 0, 0, 0, x->width / 2, x->height / 2);
    x->last_x = x->width / 2, x->last_y = x->height / 2;
    x->have_last = true;
}

void input__x11_set_capture(input__x11 *x, bool on)
{
    if (!x->display || on == x->grabbed)
        return;
    Display *d = DPY(x);
    if (on) {
        const int r = XGrabPointer(
            d, (Window)x->window, True, ButtonPressMask | ButtonReleaseMask | PointerMotionMask,
            GrabModeAsync, GrabModeAsync, (Window)x->window, blank_cursor(x), CurrentTime);
        if (r != GrabSuccess) {
            INPUT_LOG(CT_LOG_WARNING,
                      "set_capture: the pointer grab failed (%d); trying again next frame", r);
            return;
        }
        x->grabbed = true;
        warp_to_centre(x);
    } else {
        XUngrabPointer(d, CurrentTime);
        x->grabbed = false;
    }
    XFlush(d);
}

/* The control name of a key: its keysym's name in lower case, unshifted ("w", not "W"). */
static uint32_t key_control(XKeyEvent *k)
{
    const KeySym sym = XLookupKeysym(k, 0);
    const char *name = sym != NoSymbol ? XKeysymToString(sym) : NULL;
    if (!name)
        return 0;
    char lower[CT_INPUT_MAX_NAME];
    size_t n = strlen(name);
    if (n >= sizeof lower)
        return 0;
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
    return input__api_v1.control(lower);
}

static void button(unsigned b, bool press)
{
    static const char *const names[] = {NULL,       "mouse:left", "mouse:middle", "mouse:right",
                                        NULL,       NULL,         NULL,           NULL,
                                        "mouse:x1", "mouse:x2"};
    if (b >= 4 && b <= 7) {
        if (press) /* a wheel step is a press and a release; one event */
            input__emit(&(ct_input_event_t){.type = CT_INPUT_WHEEL,
                                            .x = b == 6   ? -1
                                                 : b == 7 ? 1
                                                          : 0,
                                            .y = b == 4   ? 1
                                                 : b == 5 ? -1
                                                          : 0});
        return;
    }
    if (b < sizeof names / sizeof names[0] && names[b])
        input__emit(&(ct_input_event_t){.type = press ? CT_INPUT_DOWN : CT_INPUT_UP,
                                        .control = input__api_v1.control(names[b])});
}

void input__x11_poll(input__x11 *x, bool capture)
{
    if (!x->display)
        return;
    Display *d = DPY(x);
    if (capture != x->grabbed)
        input__x11_set_capture(x, capture);
    while (XPending(d)) {
        XEvent ev;
        XNextEvent(d, &ev);
        switch (ev.type) {
        case KeyPress:
        case KeyRelease: {
            const uint32_t k = key_control(&ev.xkey);
            if (k)
                input__emit(&(ct_input_event_t){
                    .type = ev.type == KeyPress ? CT_INPUT_DOWN : CT_INPUT_UP, .control = k});
            break;
        }
        case ButtonPress:
        case ButtonRelease: button(ev.xbutton.button, ev.type == ButtonPress); break;
        case MotionNotify: {
            const int mx = ev.xmotion.x, my = ev.xmotion.y;
            const int dx = x->have_last ? mx - x->last_x : 0,
                      dy = x->have_last ? my - x->last_y : 0;
            x->last_x = mx, x->last_y = my, x->have_last = true;
            if (x->grabbed && mx == x->width / 2 && my == x->height / 2)
                break; /* the warp back to the centre, not the user's motion */
            input__emit(
                &(ct_input_event_t){.type = CT_INPUT_MOTION, .x = mx, .y = my, .dx = dx, .dy = dy});
            break;
        }
        case FocusOut:
            /* Keys released while another window has the focus never reach us: let them go now. */
            input__release_all(&input__m.state->core, emit_up, NULL);
            break;
        case ConfigureNotify:
            x->width = ev.xconfigure.width, x->height = ev.xconfigure.height;
            break;
        default: break;
        }
    }
    if (x->grabbed && (x->last_x != x->width / 2 || x->last_y != x->height / 2))
        warp_to_centre(x);
    XFlush(d);
}

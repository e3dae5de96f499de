/*
 * What a board does between power-on (or a soft reset) and its REPL, as MicroPython's
 * ESP32 port does it: mount the filesystem at / (formatting it the first time, as
 * ports/esp32's inisetup.py does on blank flash), run boot.py, then main.py when the
 * REPL is the friendly one (a host that soft-resets from the raw REPL, like mpremote and
 * memcore's harness, gets boot.py only), then the REPL.
 *
 * ports/qemu's main.c calls mp_init() and goes straight to its REPL, so this runs at the
 * end of mp_init() (MICROPY_PORT_INIT_FUNC, see micropython.mk).  One difference from the
 * ESP32: sys.exit() in boot.py or main.py ends the script but does not soft-reset.
 */
#include "py/mperrno.h"
#include "py/runtime.h"
#include "extmod/vfs.h"
#include "extmod/vfs_lfs.h"
#include "shared/runtime/pyexec.h"

#include "qemu_bsp.h"

/* VfsLfs2(RAMDisk()), formatting the disk first when asked; raises on failure. */
static mp_obj_t open_filesystem(bool format) {
    mp_obj_t lfs_type = MP_OBJ_FROM_PTR(&mp_type_vfs_lfs2);
    if (format) {
        mp_call_function_1(mp_load_attr(lfs_type, MP_QSTR_mkfs), qemu_bsp_ramdisk());
    }
    return mp_call_function_1(lfs_type, qemu_bsp_ramdisk());
}

/* The RAM disk's filesystem, or MP_OBJ_NULL (after printing why) when it cannot be had. */
static mp_obj_t filesystem(void) {
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
        mp_obj_t fs = open_filesystem(false);
        nlr_pop();
        return fs;
    }
    /* Only a disk with no filesystem on it (blank RAM at power-on) is formatted. */
    if (!mp_obj_exception_match(MP_OBJ_FROM_PTR(nlr.ret_val), MP_OBJ_FROM_PTR(&mp_type_OSError))) {
        mp_obj_print_exception(&mp_plat_print, MP_OBJ_FROM_PTR(nlr.ret_val));
        return MP_OBJ_NULL;
    }
    if (nlr_push(&nlr) == 0) {
        mp_obj_t fs = open_filesystem(true);
        nlr_pop();
        return fs;
    }
    mp_printf(&mp_plat_print, "qemu_bsp: cannot format the RAM disk: ");
    mp_obj_print_exception(&mp_plat_print, MP_OBJ_FROM_PTR(nlr.ret_val));
    return MP_OBJ_NULL;
}

static bool mount_root(void) {
    mp_obj_t fs = filesystem();
    if (fs == MP_OBJ_NULL) {
        return false;
    }
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
        mp_obj_t args[2] = { fs, MP_OBJ_NEW_QSTR(MP_QSTR__slash_) };
        mp_vfs_mount(2, args, (mp_map_t *)&mp_const_empty_map);
        mp_vfs_chdir(MP_OBJ_NEW_QSTR(MP_QSTR__slash_));
        nlr_pop();
        return true;
    }
    mp_printf(&mp_plat_print, "qemu_bsp: cannot mount the RAM disk: ");
    mp_obj_print_exception(&mp_plat_print, MP_OBJ_FROM_PTR(nlr.ret_val));
    return false;
}

void qemu_bsp_boot(void) {
    qemu_bsp_uart_fifo();
    if (!mount_root()) {
        return;
    }
    /* pyexec_file_if_exists: 1 when the script is absent or ran to its end, 0 when it
     * raised; ports/esp32 runs main.py only after a boot.py that did not raise. */
    int ret = pyexec_file_if_exists("boot.py");
    if (pyexec_mode_kind == PYEXEC_MODE_FRIENDLY_REPL && ret != 0 && !(ret & PYEXEC_FORCED_EXIT)) {
        pyexec_file_if_exists("main.py");
    }
}

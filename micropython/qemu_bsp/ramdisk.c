/*
 * qemu_bsp.RAMDisk: the board's "flash", a block device in RAM for MicroPython's VFS; the
 * module qemu_bsp holds only this type.
 *
 * 512 KiB in 4 KiB blocks (an ESP32's flash sector, the block littlefs uses there).  The
 * store is a static array: zero at power-on (littlefs then finds no filesystem and
 * qemu_bsp_boot formats it), untouched by a soft reset, so files deployed by the host
 * survive Ctrl-D and machine.soft_reset() as they survive on a board's flash.  Every
 * RAMDisk() is the same one device.
 *
 * The extended block protocol (MicroPython's vfs docs): readblocks/writeblocks take a
 * byte offset within the block, and ioctl(6, block) erases, so littlefs can program
 * partial blocks.
 */
#include <string.h>

#include "py/mperrno.h"
#include "py/obj.h"
#include "py/runtime.h"
#include "extmod/vfs.h"

#include "qemu_bsp.h"

#define RAMDISK_BLOCK_BYTES (4096)
#define RAMDISK_BLOCKS (128)
#define RAMDISK_ERASED (0xff)

static uint8_t ramdisk_store[RAMDISK_BLOCKS * RAMDISK_BLOCK_BYTES];

static const mp_obj_base_t ramdisk_obj = { &qemu_bsp_ramdisk_type };

mp_obj_t qemu_bsp_ramdisk(void) {
    return MP_OBJ_FROM_PTR(&ramdisk_obj);
}

static mp_obj_t ramdisk_make_new(const mp_obj_type_t *type, size_t n_args, size_t n_kw, const mp_obj_t *args) {
    (void)type;
    (void)args;
    mp_arg_check_num(n_args, n_kw, 0, 0, false);
    return qemu_bsp_ramdisk();
}

/* The bytes [block * size + offset, + len) of the store, or NULL if outside it. */
static uint8_t *ramdisk_span(mp_obj_t block_in, mp_obj_t offset_in, size_t len) {
    mp_int_t block = mp_obj_get_int(block_in);
    mp_int_t offset = offset_in == MP_OBJ_NULL ? 0 : mp_obj_get_int(offset_in);
    if (block < 0 || block >= RAMDISK_BLOCKS || offset < 0 || offset > RAMDISK_BLOCK_BYTES) {
        return NULL;
    }
    size_t start = (size_t)block * RAMDISK_BLOCK_BYTES + (size_t)offset;
    if (len > sizeof(ramdisk_store) - start) {
        return NULL;
    }
    return ramdisk_store + start;
}

/* readblocks(block, buf[, offset]) -> 0, or -EIO outside the disk */
static mp_obj_t ramdisk_readblocks(size_t n_args, const mp_obj_t *args) {
    mp_buffer_info_t buf;
    mp_get_buffer_raise(args[2], &buf, MP_BUFFER_WRITE);
    uint8_t *span = ramdisk_span(args[1], n_args > 3 ? args[3] : MP_OBJ_NULL, buf.len);
    if (span == NULL) {
        return MP_OBJ_NEW_SMALL_INT(-MP_EIO);
    }
    memcpy(buf.buf, span, buf.len);
    return MP_OBJ_NEW_SMALL_INT(0);
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(ramdisk_readblocks_obj, 3, 4, ramdisk_readblocks);

/* writeblocks(block, buf[, offset]) -> 0, or -EIO outside the disk */
static mp_obj_t ramdisk_writeblocks(size_t n_args, const mp_obj_t *args) {
    mp_buffer_info_t buf;
    mp_get_buffer_raise(args[2], &buf, MP_BUFFER_READ);
    uint8_t *span = ramdisk_span(args[1], n_args > 3 ? args[3] : MP_OBJ_NULL, buf.len);
    if (span == NULL) {
        return MP_OBJ_NEW_SMALL_INT(-MP_EIO);
    }
    memcpy(span, buf.buf, buf.len);
    return MP_OBJ_NEW_SMALL_INT(0);
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(ramdisk_writeblocks_obj, 3, 4, ramdisk_writeblocks);

static mp_obj_t ramdisk_ioctl(mp_obj_t self, mp_obj_t op_in, mp_obj_t arg_in) {
    (void)self;
    switch (mp_obj_get_int(op_in)) {
        case MP_BLOCKDEV_IOCTL_INIT:
        case MP_BLOCKDEV_IOCTL_DEINIT:
        case MP_BLOCKDEV_IOCTL_SYNC:
            return MP_OBJ_NEW_SMALL_INT(0);
        case MP_BLOCKDEV_IOCTL_BLOCK_COUNT:
            return MP_OBJ_NEW_SMALL_INT(RAMDISK_BLOCKS);
        case MP_BLOCKDEV_IOCTL_BLOCK_SIZE:
            return MP_OBJ_NEW_SMALL_INT(RAMDISK_BLOCK_BYTES);
        case MP_BLOCKDEV_IOCTL_BLOCK_ERASE: {
            uint8_t *span = ramdisk_span(arg_in, MP_OBJ_NULL, RAMDISK_BLOCK_BYTES);
            if (span == NULL) {
                return MP_OBJ_NEW_SMALL_INT(-MP_EIO);
            }
            memset(span, RAMDISK_ERASED, RAMDISK_BLOCK_BYTES);
            return MP_OBJ_NEW_SMALL_INT(0);
        }
        default:
            return mp_const_none;
    }
}
static MP_DEFINE_CONST_FUN_OBJ_3(ramdisk_ioctl_obj, ramdisk_ioctl);

static const mp_rom_map_elem_t ramdisk_locals_table[] = {
    { MP_ROM_QSTR(MP_QSTR_readblocks), MP_ROM_PTR(&ramdisk_readblocks_obj) },
    { MP_ROM_QSTR(MP_QSTR_writeblocks), MP_ROM_PTR(&ramdisk_writeblocks_obj) },
    { MP_ROM_QSTR(MP_QSTR_ioctl), MP_ROM_PTR(&ramdisk_ioctl_obj) },
};
static MP_DEFINE_CONST_DICT(ramdisk_locals, ramdisk_locals_table);

MP_DEFINE_CONST_OBJ_TYPE(
    qemu_bsp_ramdisk_type,
    MP_QSTR_RAMDisk,
    MP_TYPE_FLAG_NONE,
    make_new, ramdisk_make_new,
    locals_dict, &ramdisk_locals
    );

static const mp_rom_map_elem_t qemu_bsp_globals_table[] = {
    { MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR_qemu_bsp) },
    { MP_ROM_QSTR(MP_QSTR_RAMDisk), MP_ROM_PTR(&qemu_bsp_ramdisk_type) },
};
static MP_DEFINE_CONST_DICT(qemu_bsp_globals, qemu_bsp_globals_table);

const mp_obj_module_t qemu_bsp_module = {
    .base = { &mp_type_module },
    .globals = (mp_obj_dict_t *)&qemu_bsp_globals,
};

MP_REGISTER_MODULE(MP_QSTR_qemu_bsp, qemu_bsp_module);

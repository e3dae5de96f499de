"""memcore.hil: run memcore on a MicroPython board over its serial port and compare with the host.

transport  the raw-REPL client (pyserial)      boards   serial port / simulated board
deploy     copy files onto the board           lines    the board's `@memcore {json}` lines
parity     same vectors on host and board      report   the difference table and JSON report
rule       when a board's answer agrees         qemu     a ports/qemu firmware in QEMU as a board
consistency  a boot report's fields checked against each other (monitor and hil refuse a forged one)
sim        `memcore sim`: a board for any serial tool
"""
from memcore.hil.boards import Board, SerialBoard, SimulatedBoard, make_board, open_port
from memcore.hil.errors import (BoardDisconnected, BoardRebooted, BoardTimeout, HilError, ProtocolError,
                                RemoteError)
from memcore.hil.qemu import QemuBoard
from memcore.hil.transport import RawRepl

__all__ = ["Board", "BoardDisconnected", "BoardRebooted", "BoardTimeout", "HilError", "ProtocolError",
           "QemuBoard", "RawRepl", "RemoteError", "SerialBoard", "SimulatedBoard", "make_board", "open_port"]

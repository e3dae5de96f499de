// Hooks that alloclog_patch.py inserts into a scratch copy of TFLM to log every arena
// allocation; defined in oracle_main.cc when built with -DTFLM_ORACLE_ALLOCLOG.  They
// print to stdout and never touch the arena, so the patched build's sizes are the
// unpatched build's (measure_alloclog.py checks that on every model).
#ifndef TFLM_ORACLE_ALLOCLOG_H_
#define TFLM_ORACLE_ALLOCLOG_H_

#ifdef __cplusplus
extern "C" {
#endif

// One event: `fields` is the inside of a JSON object ("\"bytes\": 12, ...").  The
// current phase is added to it.
void oracle_alloclog_event(const char* event, const char* fields_format, ...);
// The step of model preparation that following events belong to; op < 0 for none.
void oracle_alloclog_phase(const char* phase, int subgraph, int op, const char* op_name);

#ifdef __cplusplus
}
#endif

#endif  // TFLM_ORACLE_ALLOCLOG_H_

#pragma once
// The libtracefs functions sonde uses. libtracefs 1.6's own header does not compile as C++ (its
// inline hist helpers pass an int where an enum is declared), so they are declared here exactly
// as <tracefs/tracefs.h> declares them.
extern "C" {
struct tracefs_instance;
struct tracefs_instance* tracefs_instance_create(const char* name);
void tracefs_instance_free(struct tracefs_instance* instance);
char* tracefs_error_last(struct tracefs_instance* instance);
}

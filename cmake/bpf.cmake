# Builds a BPF object from one .bpf.c with clang and turns it into a libbpf skeleton header
# (generated/<name>.skel.h), so the object is embedded in the sonde binary: nothing to install.
find_program(CLANG_BPF clang REQUIRED)
find_program(BPFTOOL bpftool PATHS /usr/sbin /sbin REQUIRED)
add_custom_target(bpf_skeletons)

function(sonde_bpf_skeleton name source)
  set(out_dir ${CMAKE_BINARY_DIR}/generated)
  set(obj ${out_dir}/${name}.bpf.o)
  set(skel ${out_dir}/${name}.skel.h)
  get_filename_component(source_dir ${source} DIRECTORY)
  file(GLOB shared_headers ${source_dir}/*.h)
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${CLANG_BPF} -O2 -g -Wall -Werror -target bpf -D__TARGET_ARCH_x86
            -I/usr/include/x86_64-linux-gnu -c ${source} -o ${obj}
    COMMAND sh -c "${BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}"
    DEPENDS ${source} ${shared_headers}
    COMMENT "BPF skeleton ${name}"
    VERBATIM)
  add_custom_target(bpf_${name} DEPENDS ${skel})
  add_dependencies(bpf_skeletons bpf_${name})
endfunction()

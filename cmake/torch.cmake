# LibTorch for geoattn, as the INTERFACE target geoattn_libtorch, and the facts the rest of the
# build reads: GEOATTN_TORCH_PREFIX (its root folder, resolved), GEOATTN_TORCH_VERSION,
# GEOATTN_TORCH_CUDA (the CUDA version it was built for, empty for a CPU build) and
# GEOATTN_TORCH_CXX11_ABI (1, or 0 for the pre-C++11 std::string of torch <= 2.6 wheels).
#
# GEOATTN_TORCH says where it comes from:
#   python  the torch package of a Python interpreter (GEOATTN_TORCH_PYTHON, else
#           Python3_EXECUTABLE with GEOATTN_PYTHON, else python3 on PATH): its include/ and lib/
#           folders as they are, as torch.utils.cpp_extension uses them. Its TorchConfig.cmake is
#           not read: a CUDA wheel's asks for a CUDA toolkit (nvcc, NVTX, an architecture list),
#           which geoattn, compiling no CUDA code, does not need; at run time the wheel's own CUDA
#           libraries (the nvidia-* wheels) serve.
#   system  find_package(Torch): Debian's LibTorch 1.13 (CPU), or a LibTorch folder on
#           CMAKE_PREFIX_PATH / Torch_DIR.
#   auto    (default) python when GEOATTN_TORCH_PYTHON or GEOATTN_PYTHON is set; else system when
#           find_package(Torch) finds one; else python3's torch.
set(GEOATTN_TORCH auto CACHE STRING "Where LibTorch comes from: auto, python or system")
set_property(CACHE GEOATTN_TORCH PROPERTY STRINGS auto python system)
set(GEOATTN_TORCH_PYTHON "" CACHE FILEPATH "A Python interpreter whose torch package is this build's LibTorch")

# The torch package of `python`: version, CUDA, root folder and C++ ABI, or FATAL_ERROR.
function(geoattn_torch_from_python python)
  # (pip install's isolated build: python/build_backend/geoattn_build.py points this at the target
  # environment's torch, not a second one of its own.)
  execute_process(
    COMMAND "${python}" -c
            "import os, torch; print(torch.__version__); print(torch.version.cuda or ''); print(os.path.dirname(os.path.realpath(torch.__file__))); print(int(torch._C._GLIBCXX_USE_CXX11_ABI))"
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    string(REGEX REPLACE "\n$" "" err "${err}")
    string(REGEX REPLACE ".*\n" "" err "${err}")
    message(FATAL_ERROR "geoattn: ${python} cannot import torch (${err}): pip install torch into that environment, "
                        "or point -DGEOATTN_TORCH_PYTHON at a Python that has it")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  list(GET lines 0 version)
  list(GET lines 1 cuda)
  list(GET lines 2 root)
  list(GET lines 3 abi)
  if(NOT version MATCHES "^2\\.")
    message(FATAL_ERROR "geoattn: ${python}'s torch is ${version}; the python route takes torch 2.x")
  endif()
  set(lib "${root}/lib")
  foreach(name c10 torch_cpu torch)
    if(NOT EXISTS "${lib}/lib${name}.so")
      message(FATAL_ERROR "geoattn: ${lib}/lib${name}.so is missing: ${python}'s torch ${version} is not a full wheel")
    endif()
  endforeach()
  add_library(geoattn_libtorch INTERFACE)
  target_include_directories(geoattn_libtorch SYSTEM INTERFACE "${root}/include" "${root}/include/torch/csrc/api/include")
  # As TorchConfig does: torch, torch_cpu (and torch_cuda, c10_cuda) kept even though geoattn
  # calls into them only through registries filled by their static initialisers (the CUDA
  # backend among them), which --as-needed would drop.
  set(always "${lib}/libtorch.so" "${lib}/libtorch_cpu.so")
  if(cuda)
    foreach(name torch_cuda c10_cuda)
      if(EXISTS "${lib}/lib${name}.so")
        list(APPEND always "${lib}/lib${name}.so")
      endif()
    endforeach()
    # libtorch_cuda.so finds the nvidia-* wheels' libraries through its RPATH
    # ($ORIGIN/../../nvidia/*/lib), which the linker does not read when it checks it.
    file(GLOB nvidia_libs LIST_DIRECTORIES true "${root}/../nvidia/*/lib")
    foreach(dir ${nvidia_libs})
      target_link_options(geoattn_libtorch INTERFACE "LINKER:-rpath-link,${dir}")
    endforeach()
  endif()
  list(JOIN always "," always)
  target_link_libraries(geoattn_libtorch INTERFACE "-Wl,--no-as-needed,${always},--as-needed" "${lib}/libc10.so")
  set(GEOATTN_TORCH_VERSION "${version}" PARENT_SCOPE)
  set(GEOATTN_TORCH_CUDA "${cuda}" PARENT_SCOPE)
  set(GEOATTN_TORCH_PREFIX "${root}" PARENT_SCOPE)
  set(GEOATTN_TORCH_CXX11_ABI "${abi}" PARENT_SCOPE)
endfunction()

# find_package(Torch): TORCH_LIBRARIES and the ABI from TORCH_CXX_FLAGS.
function(geoattn_torch_from_config)
  # A CUDA LibTorch's TorchConfig looks for nvcc and, without TORCH_CUDA_ARCH_LIST, for a GPU to
  # pick an architecture from: the toolkit's usual folder and Hopper (a value in the environment wins).
  if(NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(ENV{TORCH_CUDA_ARCH_LIST} "9.0")
  endif()
  if(EXISTS /usr/local/cuda/bin/nvcc)
    set(ENV{PATH} "$ENV{PATH}:/usr/local/cuda/bin")
  endif()
  if(NOT Torch_FOUND)
    find_package(Torch REQUIRED)
  endif()
  add_library(geoattn_libtorch INTERFACE)
  target_link_libraries(geoattn_libtorch INTERFACE ${TORCH_LIBRARIES})
  get_filename_component(root "${TORCH_INSTALL_PREFIX}" REALPATH)
  set(abi 1)
  if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
    set(abi 0)
  endif()
  set(cuda "")
  if(TARGET torch_cuda)
    set(cuda "${CUDA_VERSION}")
  endif()
  set(GEOATTN_TORCH_VERSION "${Torch_VERSION}" PARENT_SCOPE)
  set(GEOATTN_TORCH_CUDA "${cuda}" PARENT_SCOPE)
  set(GEOATTN_TORCH_PREFIX "${root}" PARENT_SCOPE)
  set(GEOATTN_TORCH_CXX11_ABI "${abi}" PARENT_SCOPE)
endfunction()

set(source "${GEOATTN_TORCH}")
set(python "${GEOATTN_TORCH_PYTHON}")
if(NOT python AND GEOATTN_PYTHON)
  set(python "${Python3_EXECUTABLE}")
endif()
if(source STREQUAL "auto")
  if(python)
    set(source python)
  else()
    find_package(Torch QUIET)
    if(Torch_FOUND)
      set(source system)
    else()
      set(source python)
    endif()
  endif()
endif()
if(source STREQUAL "python")
  if(NOT python)
    find_program(GEOATTN_PYTHON3_ON_PATH NAMES python3 python)
    set(python "${GEOATTN_PYTHON3_ON_PATH}")
    if(NOT python)
      message(FATAL_ERROR "geoattn: no LibTorch found: neither find_package(Torch) (Debian: apt install libtorch-dev) "
                          "nor a python3 on PATH with torch (pip install torch); or set -DGEOATTN_TORCH_PYTHON=/path/to/python")
    endif()
  endif()
  geoattn_torch_from_python("${python}")
elseif(source STREQUAL "system")
  geoattn_torch_from_config()
else()
  message(FATAL_ERROR "geoattn: GEOATTN_TORCH=${GEOATTN_TORCH}: auto, python or system")
endif()
set(GEOATTN_TORCH_SOURCE "${source}")
set(build "CPU build")
if(GEOATTN_TORCH_CUDA)
  set(build "CUDA ${GEOATTN_TORCH_CUDA} build")
endif()
message(STATUS "geoattn: LibTorch ${GEOATTN_TORCH_VERSION} (${source}; ${build}; C++11 ABI ${GEOATTN_TORCH_CXX11_ABI}) in ${GEOATTN_TORCH_PREFIX}")

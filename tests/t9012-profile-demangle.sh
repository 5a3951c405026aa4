#!/bin/sh
# The built-in profiler names C++ frames readably: a small C++ program
# (namespaces, a class template, a function template) built here with
# g++ -O2 -g, profiled by tracker run --profile alloc and --profile cpu;
# --no-demangle keeps the linkage names the ELF symbols and DWARF have.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

DB="$PWD/db.sqlite"
export TRACKER_DB="$DB" TRACKER_ARTIFACTS="$PWD/art"

cat >grid.cpp <<-\EOF
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace climate {
template <typename T> struct Grid {
	T *cells[64];
	__attribute__((noinline)) void refine(int n)
	{
		for (int i = 0; i < n && i < 64; i++) {
			cells[i] = static_cast<T *>(std::malloc(4096 * sizeof(T)));
			std::memset(cells[i], 0, 4096 * sizeof(T));
		}
	}
	__attribute__((noinline)) void release(int n)
	{
		for (int i = 0; i < n && i < 64; i++)
			std::free(cells[i]);
	}
};

namespace ops {
template <typename T> __attribute__((noinline)) void step(Grid<T> &g, int n)
{
	g.refine(n);
	g.release(n);
}
}
}

/* CPU: spins in a template function until the CPU clock passes 0.3 s */
namespace climate {
namespace ops {
template <typename T> __attribute__((noinline)) T spin(T x)
{
	while (std::clock() < CLOCKS_PER_SEC * 3 / 10)
		for (int i = 0; i < 100000; i++)
			x = x * (T)1.0000001 + (T)1e-9;
	return x;
}
}
}

int main(int argc, char **argv)
{
	climate::Grid<double> g;

	if (argc > 1)
		return climate::ops::spin<double>(1.0) > 0 ? 0 : 1;
	for (int i = 0; i < 20; i++)
		climate::ops::step(g, 64);
	return 0;
}
EOF

if command -v g++ >/dev/null 2>&1 && g++ -O2 -g -o grid grid.cpp 2>gxx.err; then
	test_set_prereq GXX
fi

# 20 steps x 64 cells x 4096 doubles
BYTES=$((20 * 64 * 4096 * 8))

test_expect_success PRELOAD,GXX 'alloc profile of a C++ program: demangled frame names' '
	tracker run -q --key cxx --profile alloc --sample-bytes 1 -- ./grid &&
	tracker flame --key cxx --kind alloc --no-demangle -o cxx.folded &&
	grep -q ";main;void climate::ops::step<double>(climate::Grid<double>&, int);climate::Grid<double>::refine(int) $BYTES$" cxx.folded &&
	! grep -q "_Z" cxx.folded
'

test_expect_success PRELOAD,GXX 'tracker run --no-demangle keeps the linkage names' '
	tracker run -q --key cxx-raw --no-demangle --profile alloc --sample-bytes 1 -- ./grid &&
	tracker flame --key cxx-raw --kind alloc --no-demangle -o raw.folded &&
	grep -q ";main;_ZN7climate3ops4stepIdEEvRNS_4GridIT_EEi;_ZN7climate4GridIdE6refineEi $BYTES$" raw.folded &&
	tracker flame --key cxx-raw --kind alloc -o read.folded &&
	grep -q ";climate::Grid<double>::refine(int) $BYTES$" read.folded
'

test_expect_success PRELOAD,GXX 'CPU profile of a C++ program: demangled frame names' '
	tracker run -q --key cxx-cpu --profile cpu -- ./grid spin &&
	tracker flame --key cxx-cpu --kind cpu --no-demangle -o cpu.folded &&
	grep -q ";double climate::ops::spin<double>(double) [0-9]*$" cpu.folded &&
	! grep -q ";_Z" cpu.folded
'

test_done

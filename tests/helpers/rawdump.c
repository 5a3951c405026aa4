/*
 * rawdump: prints a raw profile table (<pid>.<seq>.tkraw, core/measure/rawprof.h)
 * as text, for the shell tests of the preload library. Test-only: it
 * uses nothing but the header and libc, so it says nothing about the
 * real reader in core/measure/rawprof.c.
 *
 *   rawdump [-s] FILE.tkraw
 *
 * First "key value" lines for the header (magic, version, pid, ppid, seq,
 * nslots, frames_used, sample_bytes, cpu_period_ns, dropped, cpu_lost,
 * truncated, exited, unwinder, comm, exe, slots), then one line per used
 * slot:
 *
 *   slot NFRAMES FLAGS ALLOC_BYTES ALLOC_COUNT PEAK_LIVE CPU_NS FRAME...
 *
 * frames innermost first, as 0x<address>; with -s, named from the ELF
 * symbol tables of the mappings in FILE's .maps companion (the last
 * snapshot wins): "function", else "<module basename>+0x<offset>".
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/measure/rawprof.h"
#include "core/base/banned.h"

struct elf_file {
	char *path;
	unsigned char *data;
	size_t size;
};

struct mapping {
	uint64_t start, end, pgoff;
	struct elf_file *elf;
	char *path;
};

static struct mapping *maps;
static size_t nr_maps;
static struct elf_file *elves[256];
static size_t nr_elves;

static struct elf_file *elf_get(const char *path)
{
	struct elf_file *e;
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < nr_elves; i++) {
		if (!strcmp(elves[i]->path, path))
			return elves[i];
	}
	if (nr_elves == sizeof(elves) / sizeof(elves[0]))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->path = strdup(path);
	fd = open(path, O_RDONLY);
	if (fd >= 0 && !fstat(fd, &st) && st.st_size > (off_t)sizeof(Elf64_Ehdr)) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m != MAP_FAILED && !memcmp(m, ELFMAG, SELFMAG)) {
			e->data = m;
			e->size = (size_t)st.st_size;
		}
	}
	if (fd >= 0)
		close(fd);
	elves[nr_elves++] = e;
	return e;
}

/* Names the function at file offset off of e, or returns NULL. */
static const char *elf_name(struct elf_file *e, uint64_t off)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const Elf64_Phdr *ph;
	uint64_t vaddr = 0;
	int found = 0, pass;
	size_t i;

	if (!e || !e->data)
		return NULL;
	eh = (const Elf64_Ehdr *)e->data;
	if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(*ph) > e->size ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > e->size)
		return NULL;
	ph = (const Elf64_Phdr *)(e->data + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && off >= ph[i].p_offset &&
		    off < ph[i].p_offset + ph[i].p_filesz) {
			vaddr = off - ph[i].p_offset + ph[i].p_vaddr;
			found = 1;
			break;
		}
	}
	if (!found)
		return NULL;
	sh = (const Elf64_Shdr *)(e->data + eh->e_shoff);
	for (pass = 0; pass < 2; pass++) {
		uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		for (i = 0; i < eh->e_shnum; i++) {
			const Elf64_Sym *sym;
			const char *str;
			size_t j, n;

			if (sh[i].sh_type != want || sh[i].sh_link >= eh->e_shnum ||
			    sh[i].sh_offset + sh[i].sh_size > e->size)
				continue;
			sym = (const Elf64_Sym *)(e->data + sh[i].sh_offset);
			n = sh[i].sh_size / sizeof(*sym);
			str = (const char *)e->data + sh[sh[i].sh_link].sh_offset;
			for (j = 0; j < n; j++) {
				if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC || !sym[j].st_value)
					continue;
				if (vaddr >= sym[j].st_value && vaddr < sym[j].st_value + sym[j].st_size)
					return str + sym[j].st_name;
			}
		}
	}
	return NULL;
}

static void read_maps(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8], *p;
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &n) < 4 ||
		    !n || perms[2] != 'x')
			continue;
		p = line + n;
		p[strcspn(p, "\n")] = '\0';
		maps = realloc(maps, (nr_maps + 1) * sizeof(*maps));
		if (!maps)
			exit(1);
		maps[nr_maps].start = lo;
		maps[nr_maps].end = hi;
		maps[nr_maps].pgoff = off;
		maps[nr_maps].path = strdup(p);
		maps[nr_maps].elf = *p == '/' ? elf_get(p) : NULL;
		nr_maps++;
	}
	fclose(f);
}

static void print_frame(uint64_t a, int is_leaf)
{
	size_t i;

	for (i = nr_maps; i-- > 0;) {
		const char *name, *base;
		uint64_t off;

		if (a < maps[i].start || a >= maps[i].end)
			continue;
		off = a - maps[i].start + maps[i].pgoff;
		/* A return address names the call before it. */
		name = elf_name(maps[i].elf, is_leaf ? off : off - 1);
		if (name) {
			printf(" %s", name);
			return;
		}
		base = strrchr(maps[i].path, '/');
		printf(" %s+0x%llx", base ? base + 1 : maps[i].path, (unsigned long long)off);
		return;
	}
	printf(" 0x%llx", (unsigned long long)a);
}

int main(int argc, char **argv)
{
	const struct tk_raw_header *h;
	const struct tk_raw_slot *slots;
	const uint64_t *frames;
	int symbolize = 0, fd;
	const char *file;
	struct stat st;
	uint64_t used = 0;
	uint32_t i;
	void *m;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		symbolize = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: rawdump [-s] FILE.tkraw\n");
		return 2;
	}
	file = argv[1];
	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < TK_RAW_HEADER_SIZE) {
		fprintf(stderr, "rawdump: cannot read '%s'\n", file);
		return 1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 1;
	h = m;
	if (memcmp(h->magic, TK_RAW_MAGIC, 8) || h->header_size < sizeof(*h) ||
	    (uint64_t)h->header_size + (uint64_t)h->nslots * sizeof(*slots) > (uint64_t)st.st_size ||
	    h->frames_off + h->frames_cap * 8 > (uint64_t)st.st_size) {
		fprintf(stderr, "rawdump: '%s' is not a raw profile table\n", file);
		return 1;
	}
	if (symbolize) {
		size_t n = strlen(file);
		char *mp = malloc(n + 8);

		if (!mp)
			return 1;
		memcpy(mp, file, n + 1);
		if (n > 6 && !strcmp(mp + n - 6, ".tkraw"))
			memcpy(mp + n - 6, ".maps", 6);
		read_maps(mp);
		free(mp);
	}
	slots = (const struct tk_raw_slot *)((const char *)m + h->header_size);
	frames = (const uint64_t *)((const char *)m + h->frames_off);
	for (i = 0; i < h->nslots; i++)
		used += slots[i].hash != 0;
	printf("magic ok\nversion %u\npid %d\nppid %d\nseq %u\nnslots %u\nframes_used %llu\n",
	       h->version, h->pid, h->ppid, h->seq, h->nslots, (unsigned long long)h->frames_used);
	printf("sample_bytes %llu\ncpu_period_ns %llu\ndropped %llu\ncpu_lost %llu\ntruncated %llu\n",
	       (unsigned long long)h->sample_bytes, (unsigned long long)h->cpu_period_ns,
	       (unsigned long long)h->dropped, (unsigned long long)h->cpu_lost,
	       (unsigned long long)h->truncated);
	printf("exited %u\nunwinder %.16s\ncomm %.16s\nexe %.1024s\nslots %llu\n",
	       h->flags & TK_RAW_F_EXITED, h->unwinder, h->comm, h->exe, (unsigned long long)used);
	for (i = 0; i < h->nslots; i++) {
		const struct tk_raw_slot *s = &slots[i];
		uint32_t j;

		if (!s->hash)
			continue;
		printf("slot %u %u %.0f %.3f %.0f %.0f", s->nframes, s->flags, s->alloc_bytes,
		       s->alloc_count, s->peak_live_bytes, s->cpu_ns);
		if (s->frames + s->nframes > h->frames_cap) {
			printf(" [bad frames]\n");
			continue;
		}
		for (j = 0; j < s->nframes; j++) {
			uint64_t a = frames[s->frames + j];

			if (symbolize)
				print_frame(a, j == 0 && (s->flags & TK_RAW_SLOT_LEAF_IP));
			else
				printf(" 0x%llx", (unsigned long long)a);
		}
		printf("\n");
	}
	return 0;
}

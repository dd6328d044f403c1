# studio-body: build a release binary and install it as a hardened systemd service.
#
#   make                      build .build/release/studio-body (static Swift stdlib)
#   sudo make install         install binary, units, udev rules, board files, docs; create the
#                             user and groups; write the config and token only if absent;
#                             restart the service if it runs. Never builds: run `make` first
#   sudo make uninstall       remove what install put in place; keep the config, the token, the
#                             state (/var/lib/studio-body: the TLS key Oriel pins) and the user, and say so
#   make deb                  build studio-body_VERSION_ARCH.deb from debian/ (debhelper), for
#                             this machine's architecture (arm64 on a 64-bit Raspberry Pi OS)
#
# PREFIX and DESTDIR are honoured. With DESTDIR set (a staging tree or a package) no user or
# group is created and nothing is chowned or reloaded; the run says so.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share/studio-body
DOCDIR     ?= $(PREFIX)/share/doc/studio-body
# systemd and udev read /usr/local/lib/... as well as /usr/lib/...; other prefixes need these set.
UNITDIR    ?= $(PREFIX)/lib/systemd/system
UDEVDIR    ?= $(PREFIX)/lib/udev/rules.d
SYSCONFDIR ?= /etc
CONFDIR    ?= $(SYSCONFDIR)/studio-body
# The service's StateDirectory= (the TLS key and certificate Oriel pins): uninstall names it, never removes it.
STATEDIR   ?= /var/lib/studio-body
SERVICE_USER ?= studio-body

SWIFT      ?= swift
# The one source of the version: the program's own `let version` (studio-body --version).
VERSION    := $(shell sed -n 's/^let version = "\(.*\)"$$/\1/p' Sources/studio-body/main.swift)
SWIFTFLAGS ?= -c release --static-swift-stdlib
# Where swift build puts the release products: .build/release for this machine, or
# .build/aarch64-unknown-linux-gnu/release for scripts/cross's arm64 build.
RELEASE_DIR ?= .build/release
BIN        ?= $(RELEASE_DIR)/studio-body
# The code a request or a press runs, laid out together (issue 21): each function in its own
# section, and gold places the ones bench/code-order.txt lists side by side, in its order (at
# the end of .text, after the code it was not told about). A wake-up after a sleep then touches
# a few dozen pages of code, not two hundred. The file is made by bench/code-order.py, which
# checks it with --check; a name it lists that no longer exists is passed over. The ordering
# file is gold's (lld refuses the option), so gold is named. `make LAYOUT=` builds without.
CODE_ORDER := bench/code-order.txt
LAYOUT     ?= -Xswiftc -use-ld=gold -Xswiftc -Xfrontend -Xswiftc -function-sections \
              -Xlinker --section-ordering-file='$(CURDIR)/$(CODE_ORDER)'
# swift build compiles nothing again when only its flags change: the flags of the last release
# build are kept here, and a change removes its objects first, so no object of the old flags
# is linked with the new.
BUILD_FLAGS = $(SWIFTFLAGS) $(LAYOUT)
FLAGS_STAMP := $(RELEASE_DIR)-flags

INSTALL    ?= install
# What the studio-body product is built from (Package.swift: every target but http-bench,
# a benchmark that is not installed) and the code order, so a change elsewhere never rebuilds it.
SOURCES    := Package.swift $(CODE_ORDER) $(shell find Sources -type f -not -path 'Sources/http-bench/*' 2>/dev/null)

# The paths written in the repository's unit and example config, rewritten at install.
EDIT = sed -e 's|/usr/local/bin/studio-body|$(BINDIR)/studio-body|g' \
           -e 's|/usr/local/share/studio-body|$(DATADIR)|g' \
           -e 's|/usr/local/share/doc/studio-body|$(DOCDIR)|g' \
           -e 's|/etc/studio-body|$(CONFDIR)|g' \
           -e 's|^User=studio-body|User=$(SERVICE_USER)|' \
           -e 's|^Group=studio-body|Group=$(SERVICE_USER)|' \
           -e 's|^SocketUser=studio-body|SocketUser=$(SERVICE_USER)|' \
           -e 's|^SocketGroup=studio-body|SocketGroup=$(SERVICE_USER)|'

BOARD_FILES = board/raspberrypi.conf board/sim.conf board/WIRING.md board/wiring.svg
# The README and every page its links reach, installed under DOCDIR in the repository's layout
# (DOCDIR/docs/install.md, DOCDIR/board/WIRING.md), so each relative link in the installed copies
# resolves as it does in the repository: the same text, unedited. scripts/test-install follows
# every link in the installed tree; a page linked and not listed here fails it.
DOC_FILES   = README.md \
              docs/DESIGN.md docs/api.md docs/benchmarks.md docs/browser.md docs/decisions.md \
              docs/event-loop.md docs/eyes.md docs/install.md docs/metrics.md docs/operations.md \
              docs/packaging.md docs/reliability.md docs/shape.md docs/testing.md docs/tls.md \
              docs/where.md \
              docs/screenshots/page-asking-1280.png docs/screenshots/page-on-390.png \
              docs/screenshots/page-wrong-token-390.png \
              board/WIRING.md board/wiring.svg
DOC_DIRS    = docs/screenshots docs board
UNITS       = systemd/studio-body.service systemd/studio-body-gnss@.service systemd/studio-body-picamera.service \
              systemd/studio-body-picamera.socket
RULES       = udev/70-studio-body.rules

.PHONY: all build built http-bench install install-files install-config install-token install-system uninstall deb
all: build
build: $(BIN)

# swift build leaves the binary alone when no source's content changed (a checkout that only
# touched files): touch it, so it is newer than its sources and `make install` takes it.
$(BIN): $(SOURCES) $(FLAGS_STAMP)
	@# A new code order changes no object, so swift build would not link again: make it.
	@if [ -e $@ ] && [ $(CODE_ORDER) -nt $@ ]; then rm -f $@; fi
	$(SWIFT) build $(BUILD_FLAGS) --product studio-body
	touch $@

# Rewritten only when the flags differ, so an unchanged build stays up to date.
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(BUILD_FLAGS)" ]; then \
	  echo "build flags changed: the release objects are compiled again"; \
	  rm -f $(RELEASE_DIR)/*.build/*.o; echo "$(BUILD_FLAGS)" > $@; fi

# The HTTP server alone (scripts/bench), built as the body is, so the two share their objects.
http-bench: $(FLAGS_STAMP)
	@if [ -e .build/release/http-bench ] && [ $(CODE_ORDER) -nt .build/release/http-bench ]; then \
	  rm -f .build/release/http-bench; fi
	$(SWIFT) build $(BUILD_FLAGS) --product http-bench

.PHONY: FORCE
FORCE:

# Installing never builds: under sudo the build would run as root, where swiftly's swift
# is not on the PATH, and would leave root's files in .build. It says what to run instead.
built:
	@if [ ! -e $(BIN) ]; then \
		echo "install: there is no $(BIN) yet: run 'make' first, as your own user (not with sudo), then install again" >&2; exit 1; \
	fi
	@newer=$$(find $(SOURCES) -newer $(BIN) 2>/dev/null | head -3 | tr '\n' ' '); if [ -n "$$newer" ]; then \
		echo "install: $(BIN) is older than its sources ($${newer% }): run 'make' first, as your own user (not with sudo), then install again" >&2; exit 1; \
	fi

install: built install-files install-config install-token install-system

install-files: built
	$(INSTALL) -d -m 0755 $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVDIR) \
		$(DESTDIR)$(DATADIR)/board $(DESTDIR)$(DOCDIR) $(DESTDIR)$(CONFDIR)
	$(INSTALL) -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/studio-body
	for f in $(UNITS); do $(EDIT) $$f > $(DESTDIR)$(UNITDIR)/$${f#systemd/}.tmp && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$${f#systemd/}.tmp && \
		mv $(DESTDIR)$(UNITDIR)/$${f#systemd/}.tmp $(DESTDIR)$(UNITDIR)/$${f#systemd/}; done
	$(INSTALL) -m 0644 $(RULES) $(DESTDIR)$(UDEVDIR)/
	$(INSTALL) -m 0644 $(BOARD_FILES) $(DESTDIR)$(DATADIR)/board/
	$(EDIT) board/body.conf.example > $(DESTDIR)$(DATADIR)/body.conf.example
	chmod 0644 $(DESTDIR)$(DATADIR)/body.conf.example
	$(INSTALL) -d -m 0755 $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_DIRS))
	for f in $(DOC_FILES); do $(INSTALL) -m 0644 $$f $(DESTDIR)$(DOCDIR)/$$f || exit 1; done

# The package ships body.conf (a conffile: dpkg keeps a person's edits) but never a token:
# one token in a .deb would be every body's token. Its postinst writes the token instead.
install-config: install-files
	@# Never overwrite a configuration a person may have edited.
	@if [ -e $(DESTDIR)$(CONFDIR)/body.conf ]; then \
		echo "install: keeping the existing $(DESTDIR)$(CONFDIR)/body.conf (the new example is $(DATADIR)/body.conf.example)"; \
	else \
		$(INSTALL) -m 0644 $(DESTDIR)$(DATADIR)/body.conf.example $(DESTDIR)$(CONFDIR)/body.conf && \
		echo "install: wrote $(DESTDIR)$(CONFDIR)/body.conf from the example"; \
	fi

install-token: install-files
	@# The token Oriel must present: 32 random bytes in hex, readable only by the service.
	@if [ -e $(DESTDIR)$(CONFDIR)/token ]; then \
		echo "install: keeping the existing $(DESTDIR)$(CONFDIR)/token"; \
	else \
		( umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > $(DESTDIR)$(CONFDIR)/token.tmp && \
		  chmod 0600 $(DESTDIR)$(CONFDIR)/token.tmp && \
		  mv $(DESTDIR)$(CONFDIR)/token.tmp $(DESTDIR)$(CONFDIR)/token ) && \
		echo "install: generated a new token in $(DESTDIR)$(CONFDIR)/token (mode 0600)"; \
	fi

# The user, groups, token owner and reloads: only on the real system.
install-system: install-files install-config install-token
ifneq ($(DESTDIR),)
	@echo "install: DESTDIR is set: not creating user $(SERVICE_USER) or groups gpio, video, not chowning $(CONFDIR)/token, not reloading systemd or udev"
else
	getent group gpio >/dev/null || groupadd --system gpio
	getent group video >/dev/null || groupadd --system video
	if getent passwd $(SERVICE_USER) >/dev/null; then \
		usermod --append --groups gpio,video $(SERVICE_USER); \
	else \
		useradd --system --user-group --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin --groups gpio,video $(SERVICE_USER); \
	fi
	chown $(SERVICE_USER):$(SERVICE_USER) $(CONFDIR)/token
	chmod 0600 $(CONFDIR)/token
	@# GPIO chips only where the rule has work to do (not yet root:gpio 0660): on Raspberry Pi
	@# OS, whose own rules made them so, any event for gpiochip0 makes 60-gpiochip4.rules drop
	@# the /dev/gpiochip4 link it made (its `test ! -c /dev/gpiochip4` guard sees that link).
	@if [ -d /run/systemd/system ]; then \
		systemctl daemon-reload && \
		udevadm control --reload && \
		udevadm trigger --action=change --subsystem-match=video4linux --subsystem-match=tty && \
		for n in /dev/gpiochip*; do \
			if [ -c "$$n" ] && [ ! -L "$$n" ] && [ "$$(stat -c %G:%a "$$n")" != gpio:660 ]; then \
				echo "install: udevadm trigger $$n (for the gpio group)"; udevadm trigger --action=change "$$n"; fi; \
		done; \
		udevadm settle --timeout=10 || true; \
	else echo "install: systemd is not running here: not reloading systemd or udev"; fi
	@# The Pi camera ran always before: its old enabling (the service in multi-user.target)
	@# becomes the socket that starts it only for a tap.
	@if [ -d /run/systemd/system ] && [ -L /etc/systemd/system/multi-user.target.wants/studio-body-picamera.service ]; then \
		rm -f /etc/systemd/system/multi-user.target.wants/studio-body-picamera.service && \
		systemctl daemon-reload && systemctl stop studio-body-picamera.service && \
		systemctl enable --now studio-body-picamera.socket && \
		echo "install: the Pi camera now runs only during a tap: studio-body-picamera.socket is enabled in place of the always-on service; set 'wake = /run/studio-body-picamera.sock' in [camera] of $(CONFDIR)/body.conf"; \
	fi
	@# Every running unit runs the new program: the body again (which ends a tap's feeder with
	@# its connection; the next tap starts the new one), and the camera's socket anew.
	@if [ -d /run/systemd/system ]; then \
		if systemctl is-active --quiet studio-body-picamera.socket; then \
			systemctl restart studio-body-picamera.socket && echo "install: restarted studio-body-picamera.socket"; fi; \
		if systemctl is-active --quiet studio-body.service; then \
			systemctl restart studio-body.service && \
			echo "install: restarted the running studio-body service, so it runs the new program"; fi; \
	fi
	@echo "install: done. Next: edit $(CONFDIR)/body.conf, check it with 'sudo -u $(SERVICE_USER) $(BINDIR)/studio-body check --config $(CONFDIR)/body.conf', then 'sudo systemctl enable --now studio-body'"
endif

uninstall:
ifeq ($(DESTDIR),)
	@if [ -d /run/systemd/system ]; then systemctl disable --now studio-body.service studio-body-picamera.socket studio-body-picamera.service || true; fi
endif
	rm -f $(DESTDIR)$(BINDIR)/studio-body
	rm -f $(DESTDIR)$(UNITDIR)/studio-body.service $(DESTDIR)$(UNITDIR)/studio-body-gnss@.service \
		$(DESTDIR)$(UNITDIR)/studio-body-picamera.service $(DESTDIR)$(UNITDIR)/studio-body-picamera.socket
	rm -f $(DESTDIR)$(UDEVDIR)/70-studio-body.rules
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/board/,$(notdir $(BOARD_FILES)))
	rm -f $(DESTDIR)$(DATADIR)/body.conf.example $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_FILES))
	-rmdir $(DESTDIR)$(DATADIR)/board $(DESTDIR)$(DATADIR) $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_DIRS)) \
		$(DESTDIR)$(DOCDIR) 2>/dev/null
ifeq ($(DESTDIR),)
	@if [ -d /run/systemd/system ]; then systemctl daemon-reload; udevadm control --reload; fi
endif
	@echo "uninstall: removed the program, its units, the udev rules, the board files and the docs. Kept, so a reinstall finds them:"
	@echo "  $(DESTDIR)$(CONFDIR)/: your configuration (body.conf, the token, any board file you copied there)"
	@echo "  $(DESTDIR)$(STATEDIR)/: the TLS key and certificate Oriel pins (a new one needs a new pin)$$([ -d '$(DESTDIR)$(STATEDIR)' ] || echo '; not there now: the service makes it at its first start')"
	@echo "  the user $(SERVICE_USER): it owns the token and the state"
	@echo "  To remove them too: sudo rm -r $(CONFDIR) $(STATEDIR) && sudo userdel $(SERVICE_USER)"

# The Debian package, from debian/ (debhelper compat 13): debian/rules builds with $(SWIFT)
# through this Makefile and installs with PREFIX=/usr. The .deb lands in $(DEB_OUT).
# Swift is not a Debian package, so it is no Build-Depends: say where it is with SWIFT=.
DEB_OUT ?= .
# debhelper works inside debian/, so two package builds in one tree at once mix their files
# (the arm64 stage packs while the VM's deb-test does): each holds this lock while it packs.
# scripts/cross takes it outside the arm64 root and passes DEB_LOCK= to the make inside.
DEB_LOCK ?= .build/deb.lock
# `make deb ARCH=arm64 SUITE=bookworm|trixie` on an x86_64 Debian machine: the arm64 package
# for that Raspberry Pi OS, cross-built by scripts/cross (docs/packaging.md, "The arm64
# packages"), in $(DEB_OUT)/SUITE/. Without ARCH, or with this machine's, the native build below.
ARCH  ?=
SUITE ?=
ifneq ($(ARCH),)
ifneq ($(ARCH),$(shell dpkg --print-architecture))
CROSS_DEB := 1
endif
endif
ifeq ($(CROSS_DEB),1)
deb:
	@[ "$(ARCH)" = arm64 ] || { echo "deb: ARCH=$(ARCH): only arm64 is cross-built (scripts/cross)" >&2; exit 1; }
	@[ -n "$(SUITE)" ] || { echo "deb: ARCH=arm64 needs SUITE=bookworm or SUITE=trixie (the Raspberry Pi OS it is for)" >&2; exit 1; }
	scripts/cross deb '$(SUITE)' '$(abspath $(DEB_OUT))'
else
deb:
	@v=$$(dpkg-parsechangelog -SVersion); [ "$$v" = "$(VERSION)" ] || { \
		echo "deb: debian/changelog says $$v, the program says $(VERSION): add an entry (dch -v $(VERSION))" >&2; exit 1; }
	mkdir -p $(DEB_OUT) $(if $(DEB_LOCK),$(dir $(DEB_LOCK)))
	STUDIO_BODY_DEB_OUT="$(abspath $(DEB_OUT))" SWIFT="$(SWIFT)" $(if $(DEB_LOCK),flock -w 1200 -E 75 $(DEB_LOCK)) dpkg-buildpackage --build=binary --no-sign \
		--buildinfo-option=-u$(abspath $(DEB_OUT)) --changes-option=-u$(abspath $(DEB_OUT)) \
		--buildinfo-file=$(abspath $(DEB_OUT))/studio-body_$(VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).buildinfo \
		--changes-file=$(abspath $(DEB_OUT))/studio-body_$(VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).changes; \
	rc=$$?; [ $$rc -ne 75 ] || echo "deb: another package build held $(DEB_LOCK) for 20 minutes (an arm64 packing under qemu-user?)" >&2; exit $$rc
	@echo "deb: built $(DEB_OUT)/studio-body_$(VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).deb"
endif

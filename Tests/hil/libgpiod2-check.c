/* Proves libgpiod 2.x (the prefix from libgpiod2-prefix) against gpio-sim in
 * the HIL guest: an output seen on the simulator, an edge with a monotonic
 * timestamp and sequence number, and the kernel's debounce folding bounce.
 * Usage: libgpiod2-check CHIP OUT_NAME OUT_SIMDIR IN_NAME IN_SIMDIR
 * Prints "ok - ..." / "not ok - ..." lines; exits 1 if any failed. */
#include <gpiod.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failed;

static void check(int cond, const char *what, long long detail)
{
	printf("%s - libgpiod %s: %s (%lld)\n", cond ? "ok" : "not ok", gpiod_api_version(), what, detail);
	if (!cond)
		failed = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

static int sim_read(const char *dir)
{
	char p[512];
	int v = -1;
	snprintf(p, sizeof p, "%s/value", dir);
	FILE *f = fopen(p, "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void sim_pull(const char *dir, const char *pull)
{
	char p[512];
	snprintf(p, sizeof p, "%s/pull", dir);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(pull, f);
		fclose(f);
	}
}

static struct gpiod_line_request *request(struct gpiod_chip *chip, unsigned int off,
					  struct gpiod_line_settings *s)
{
	struct gpiod_line_config *lc = gpiod_line_config_new();
	struct gpiod_request_config *rc = gpiod_request_config_new();
	struct gpiod_line_request *req = NULL;
	if (lc && rc && gpiod_line_config_add_line_settings(lc, &off, 1, s) == 0) {
		gpiod_request_config_set_consumer(rc, "hil-check");
		req = gpiod_chip_request_lines(chip, rc, lc);
	}
	gpiod_request_config_free(rc);
	gpiod_line_config_free(lc);
	return req;
}

/* Reads the edges that come: the first within `first_ns`, the rest until none comes
 * for 300 ms. Returns how many; `falling` (if given) counts the falling ones, `came`
 * (if given) is when the first was seen. The buffer holds the last read's events. */
static int edges(struct gpiod_line_request *req, struct gpiod_edge_event_buffer *buf,
		 int64_t first_ns, int *falling, uint64_t *came)
{
	int total = 0;
	if (falling)
		*falling = 0;
	for (int64_t wait = first_ns; gpiod_line_request_wait_edge_events(req, wait) > 0; wait = 300000000LL) {
		if (came && total == 0)
			*came = mono_ns();
		int n = gpiod_line_request_read_edge_events(req, buf, 16);
		if (n <= 0)
			break;
		for (int i = 0; falling && i < n; i++)
			*falling += gpiod_edge_event_get_event_type(gpiod_edge_event_buffer_get_event(buf, i)) ==
				    GPIOD_EDGE_EVENT_FALLING_EDGE;
		total += n;
	}
	return total;
}

/* Whether the edges that come within 1 s (then until 300 ms of quiet) end with a rising one. */
static int rose(struct gpiod_line_request *req, struct gpiod_edge_event_buffer *buf)
{
	int n = edges(req, buf, 1000000000LL, NULL, NULL);
	int last = (int)gpiod_edge_event_buffer_get_num_events(buf) - 1;
	return n > 0 && last >= 0 &&
	       gpiod_edge_event_get_event_type(gpiod_edge_event_buffer_get_event(buf, last)) ==
		       GPIOD_EDGE_EVENT_RISING_EDGE;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: %s CHIP OUT_NAME OUT_SIMDIR IN_NAME IN_SIMDIR\n", argv[0]);
		return 2;
	}
	struct gpiod_chip *chip = gpiod_chip_open(argv[1]);
	if (!chip) {
		perror("libgpiod2-check: cannot open chip");
		return 1;
	}
	int out = gpiod_chip_get_line_offset_from_name(chip, argv[2]);
	int in = gpiod_chip_get_line_offset_from_name(chip, argv[4]);
	check(out >= 0 && in >= 0, "lines found by name", out);
	if (out < 0 || in < 0)
		return 1;

	struct gpiod_line_settings *s = gpiod_line_settings_new();
	gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT);
	gpiod_line_settings_set_output_value(s, GPIOD_LINE_VALUE_ACTIVE);
	struct gpiod_line_request *req = request(chip, out, s);
	check(req != NULL, "output requested", out);
	check(sim_read(argv[3]) == 1, "driven output reads 1 on the simulator", sim_read(argv[3]));
	gpiod_line_request_release(req);
	check(sim_read(argv[3]) == 0, "released output falls back to pull-down", sim_read(argv[3]));

	gpiod_line_settings_reset(s);
	gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_INPUT);
	gpiod_line_settings_set_edge_detection(s, GPIOD_LINE_EDGE_BOTH);
	gpiod_line_settings_set_event_clock(s, GPIOD_LINE_CLOCK_MONOTONIC);
	/* 50 ms, not the body's 10: a loaded TCG guest can spread three writes
	 * over more than 10 ms. */
	gpiod_line_settings_set_debounce_period_us(s, 50000);
	req = request(chip, in, s);
	check(req != NULL, "input with edges and 50 ms debounce requested", in);
	if (!req)
		return 1;
	struct gpiod_edge_event_buffer *buf = gpiod_edge_event_buffer_new(16);

	uint64_t t0 = mono_ns();
	sim_pull(argv[5], "pull-up");
	uint64_t t1 = mono_ns();
	/* Seconds, not milliseconds: a busy TCG guest runs the debounce's work late. */
	uint64_t came = t1;
	int n = edges(req, buf, 5000000000LL, NULL, &came);
	struct gpiod_edge_event *e = n > 0 ? gpiod_edge_event_buffer_get_event(buf, 0) : NULL;
	check(n == 1 && gpiod_edge_event_get_event_type(e) == GPIOD_EDGE_EVENT_RISING_EDGE,
	      "one rising edge", n);
	if (e) {
		uint64_t ts = gpiod_edge_event_get_timestamp_ns(e);
		/* With debounce the kernel stamps the edge when it settles: after the pull,
		 * before it was seen (late, in a busy guest, but never after). */
		check(ts >= t0 && ts <= came, "timestamp is CLOCK_MONOTONIC (ns after the pull)",
		      (long long)(ts - t0));
		check(gpiod_edge_event_get_line_seqno(e) == 1, "first line sequence number is 1",
		      (long long)gpiod_edge_event_get_line_seqno(e));
	}

	/* Bounce: three changes inside the debounce settle as one falling edge. A try whose
	 * writes the guest stalled past the debounce is no bounce: it is said, the line
	 * is pulled up again, and the bounce is tried again (ten tries at most). */
	int total = 0, falling = 0, tries = 0;
	for (;;) {
		tries++;
		t0 = mono_ns();
		sim_pull(argv[5], "pull-down");
		sim_pull(argv[5], "pull-up");
		sim_pull(argv[5], "pull-down");
		t1 = mono_ns();
		total = edges(req, buf, 5000000000LL, &falling, NULL);
		if (t1 - t0 < 50000000u || tries == 10)
			break;
		printf("libgpiod %s: bounce try %d spoiled: three pulls took %.2f ms (the VM stalled), again\n",
		       gpiod_api_version(), tries, (t1 - t0) / 1e6);
		/* Up again: its rising edge read (its debounce can run late), then quiet. */
		sim_pull(argv[5], "pull-up");
		for (int waits = 0; waits < 10 && !rose(req, buf); waits++)
			;
	}
	check(t1 - t0 < 50000000u, "three pulls written within 50 ms, in a try not stalled (ns)", (long long)(t1 - t0));
	check(total == 1 && falling == 1, "bounce within debounce gives one falling edge", total);

	gpiod_edge_event_buffer_free(buf);
	gpiod_line_request_release(req);
	gpiod_line_settings_free(s);
	gpiod_chip_close(chip);
	return failed;
}

/* tb_net: the testbed's network: namespaces, bridges, veths, the router, tbf caps and /etc/hosts. */
#ifndef TESTBED_TB_NET_H
#define TESTBED_TB_NET_H

#include <stdint.h>

#include "lib/err.h"
#include "testbed/tb_state.h"

#define TB_HOSTS_FILE "/etc/hosts"

/* Build what is missing of c's network (bridges with the root namespace's .254 address,
 * one network namespace per workstation with eth0 at .<i> and an IPC namespace of its own
 * bound on TB_IPCNS_DIR/<name>, and for the routed layout the router
 * namespace at .253 on both subnets with forwarding on). Each object is written to the
 * journal before it is created; objects that exist are left alone, addresses are
 * replaced, so calling it again is harmless. Returns 0 or negative with e naming the
 * command that failed and its stderr. */
int tb_net_up(const struct tb_conf *c, struct err *e) WUR;

/* Apply the link caps of c: tbf on both ends of every workstation's veth whose rate_bps is
 * set, and on both ends of a subnet's link to the router when uplink_bps is set; removes
 * the caps that are not set. Returns 0 or negative with e set. */
int tb_net_shape(const struct tb_conf *c, struct err *e) WUR;

/* Remove one network namespace / one link if it exists. Returns 1 when removed, 0 when
 * there was nothing, negative on failure. */
int tb_net_del_netns(const char *name, struct err *e) WUR;
int tb_net_del_link(const char *name, struct err *e) WUR;
/* The same for a workstation's IPC namespace (unmounted, its file removed). */
int tb_net_del_ipcns(const char *name, struct err *e) WUR;

/* The file a workstation's IPC namespace is bound on: TB_IPCNS_DIR/ns. */
void tb_ipcns_path(const char *ns, char *buf, size_t len);

/* Remove every link in the root namespace and every named namespace (network, IPC) whose name starts
 * with the instance prefix "c<K>" followed by a letter (what a lost journal would have
 * listed). Adds the number removed to *removed. Returns 0 or negative. */
int tb_net_sweep(int instance, int *removed, struct err *e) WUR;

/* Rewrite the instance's lines of /etc/hosts ("ADDR NAME # contend-testbed K"): with c,
 * one per workstation (and the router); with c NULL, none. Other lines are kept as they
 * are; concurrent instances are serialized with a lock. Adds the lines removed to
 * *removed when non-NULL. Returns 0 or negative. */
int tb_hosts_update(int instance, const struct tb_conf *c, int *removed, struct err *e) WUR;

/* Parse a rate such as "100mbit", "1gbit", "512kbit", "10mbps" (bytes), "1000000" (bit/s)
 * into bit/s. "off", "none" and "0" give 0. Returns 0 or -E_USAGE. */
int tb_parse_rate(const char *s, int64_t *bps, struct err *e) WUR;

#endif

/*
 * The shareq.conf the shim tests parse: p4 counts nodes, p5 GPUs (a partition named debug is in
 * no family); ProdExp2 has quota in both families.
 */
#ifndef SHAREQ_TESTS_SHIM_TWO_FAMILY_CONF_H
#define SHAREQ_TESTS_SHIM_TWO_FAMILY_CONF_H

#define SHAREQ_TWO_FAMILY_CONF                     \
  "Family=p4 Partitions=p4 Capacity=node=4\n"      \
  "Family=p5 Partitions=p5 Capacity=gres/gpu=32\n" \
  "Share=ProdExp1 Family=p4 Quota=node=2\n"        \
  "Share=ProdExp2 Family=p4 Quota=node=2\n"        \
  "Share=ProdExp2 Family=p5 Quota=gres/gpu=16\n"   \
  "Share=Research Family=p5 Quota=gres/gpu=16\n"   \
  "DefaultPriority=50\n"                           \
  "MaxKeepAlive=3600\n"

#endif

/* nic.c - the NIC driver a machine names (nic.h). */
#include "sim/queue/nic.h"

#include <assert.h>

const nic_ops *nic_ops_of(const ddio_config *cfg)
{
    switch (cfg->machine.nic.driver) {
    case DDIO_NIC_ICE:
    case DDIO_NIC_I40E: return &nic_ice_ops;   /* one behaviour: nic_ice.c */
    default:
        assert(cfg->machine.nic.driver == DDIO_NIC_MLX5);
        return &nic_mlx5_ops;
    }
}

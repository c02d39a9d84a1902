// SPDX-License-Identifier: GPL-3.0-or-later
/* Seeded pseudo-random numbers for the simulator: xoshiro256** (Blackman and
 * Vigna, "Scrambled linear pseudorandom number generators", 2018) seeded through
 * splitmix64 (Steele, Lea and Flood, 2014). Each consumer owns a stream derived
 * from (seed, stream id), so adding draws in one model never shifts another's. */
#ifndef FULMAR_SIM_RNG_H
#define FULMAR_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

void sim_rng_init(struct sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t sim_rng_u64(struct sim_rng *r);
/* Uniform in [0, 1). */
double sim_rng_uniform(struct sim_rng *r);
/* Standard normal (mean 0, standard deviation 1), Box-Muller. */
double sim_rng_gauss(struct sim_rng *r);

#endif

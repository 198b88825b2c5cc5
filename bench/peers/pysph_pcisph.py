"""The peer half of bench/sph_step.sh: PySPH's PCISPH (Debian's python3-pysph 1.0b1,
Solenthaler and Pajarola 2009, the method of our sph body) on a cube of water, one thread.

PySPH's PCISPH takes no walls and lets pressure go negative, so a free surface never meets
its density tolerance (the iterations run to 500 and diverge): the cube is periodic on all
sides, with a shear flow u = U sin(2 pi z / L). The lattice, spacing, rest density, kernel
support (cubic spline, 2 dx) and time step are ours; the work per pressure iteration (predict,
density sum, pressure, pressure force over the neighbours) is the same. Prints one JSON line:
particles (real ones), with their periodic copies, steps, wall seconds of the solve (code generation, compilation and set-up
excluded), pressure iterations over the run.
Usage: /usr/bin/python3 pysph_pcisph.py --cells 20 --dx 0.01 --steps 20 --step 0.002"""

import json
import time

import numpy as np

from pysph.base.kernels import CubicSpline
from pysph.base.nnps import DomainManager
from pysph.base.utils import get_particle_array
from pysph.solver.application import Application
from pysph.sph.wc.pcisph import PCISPHScheme


class PeriodicCube(Application):
    def add_user_options(self, group):
        group.add_argument("--cells", type=int, default=20, help="particles along a side")
        group.add_argument("--dx", type=float, default=0.01)
        group.add_argument("--steps", type=int, default=20)
        group.add_argument("--step", type=float, default=0.002)
        group.add_argument("--shear", type=float, default=0.5, help="U, m/s")
        group.add_argument("--tol", type=float, default=0.001,
                           help="mean density error the iterations stop at")

    def consume_user_options(self):
        o = self.options
        self.n, self.dx, self.steps, self.step = o.cells, o.dx, o.steps, o.step
        self.shear, self.tol = o.shear, o.tol
        self.side = self.n * self.dx

    def create_domain(self):
        h = self.side / 2
        return DomainManager(xmin=-h, xmax=h, ymin=-h, ymax=h, zmin=-h, zmax=h,
                             periodic_in_x=True, periodic_in_y=True, periodic_in_z=True)

    def create_scheme(self):
        return PCISPHScheme(fluids=["fluid"], dim=3, rho0=1000.0, nu=1e-6)

    def configure_scheme(self):
        self.scheme.configure(tolerance=self.tol)
        self.scheme.configure_solver(kernel=CubicSpline(dim=3), dt=self.step,
                                     tf=(self.steps - 0.5) * self.step, pfreq=10**9)

    def create_particles(self):
        c = (np.arange(self.n) + 0.5) * self.dx - self.side / 2
        x, y, z = (a.ravel() for a in np.meshgrid(c, c, c, indexing="ij"))
        u = self.shear * np.sin(2 * np.pi * z / self.side)
        pa = get_particle_array(name="fluid", x=x, y=y, z=z, u=u, m=1000.0 * self.dx ** 3,
                                h=self.dx, rho=1000.0)
        self.scheme.setup_properties([pa])
        return [pa]


if __name__ == "__main__":
    app = PeriodicCube()
    app.setup()
    app.solver.set_disable_output(True)
    start = time.perf_counter()
    app.solver.solve(show_progress=False)
    wall = time.perf_counter() - start
    fluid = app.particles[0]
    print(json.dumps({"engine": "pysph-pcisph", "particles": int(app.n ** 3),
                      "with_periodic_copies": int(fluid.get_number_of_particles()),
                      "steps": int(app.solver.count), "wall_s": wall,
                      "iterations": int(np.sum(fluid.iters))}))

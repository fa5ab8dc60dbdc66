; MPB: the bands of a simple-cubic lattice of dielectric spheres (epsilon 12, radius 0.25)
; at three k-points; with MPI, FFTW's distributed transposes (all-to-all) and an allreduce
; per dot product of the block eigensolver.
(set! geometry-lattice (make lattice (size 1 1 1)))
(set! geometry (list (make sphere (center 0 0 0) (radius 0.25) (material (make dielectric (epsilon 12))))))
(set! resolution 12)
(set! num-bands 8)
(set! k-points (list (vector3 0 0 0) (vector3 0.5 0 0) (vector3 0.5 0.5 0)))
(run)

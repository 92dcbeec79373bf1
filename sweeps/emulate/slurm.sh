slurm_check_installed() { :; }
slurm_up() { :; }
slurm_down() { :; }
slurm_status() { :; }

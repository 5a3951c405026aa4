#!/bin/sh
# A throwaway single-node SLURM cluster with accounting, for the tests:
#
#   ci/slurm-test-server.sh start DIR [NAME]   make DIR, start munged,
#                        MariaDB, slurmdbd, slurmctld and slurmd there and
#                        register the cluster NAME (default tracker); prints
#                        DIR/slurm.conf, which SLURM_CONF must name for
#                        sbatch, srun, sacct and scancel to find it
#   ci/slurm-test-server.sh stop DIR     cancel the cluster's jobs, stop the
#                                        daemons by PID, remove DIR and
#                                        slurmd's empty cgroups
#
# Root only: slurmd starts jobs as their users, and the daemons run as
# root here (SlurmUser=root), except munged (as munge) and mariadbd (as
# mysql). Nothing is installed or started outside DIR: the daemons'
# configuration, state, logs, sockets and MariaDB's data all live in it,
# on free loopback ports. Each daemon's PID is kept in DIR/*.pid; `stop`
# kills exactly those (TERM, then KILL after 10 s). There is no init
# system to ask: Debian's policy-rc.d keeps the packages' daemons down.
# Missing packages are installed with `ci/install-deps.sh slurm`.
#
# The node has 2 CPUs and 20000 MiB, one partition `debug` whose jobs
# share the CPUs (OverSubscribe=FORCE:4: jobs that wait for their time
# limit run beside the others);
# proctrack/cgroup and task/cgroup (memory limits: --mem kills with
# OUT_OF_MEMORY), JobAcctGatherFrequency=1, PrologFlags=Contain (the
# .extern step), MpiDefault=none (srun --mpi=pmix for Open MPI).
#
# Exit status: 0 done, 1 the cluster could not be installed or started
# (the reason and the daemon's log on standard error), 2 usage error.
set -u

usage() {
	echo "usage: ci/slurm-test-server.sh (start DIR [NAME] | stop DIR)" >&2
	exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage
cmd=$1
dir=$2
name=${3:-tracker}
here=$(cd "$(dirname "$0")" && pwd)

fail() {
	echo "slurm-test-server: $*" >&2
	exit 1
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for SECONDS WHAT CMD...: retry CMD every 0.1 s
wait_for() {
	secs=$1 what=$2
	shift 2
	i=0
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -le $((secs * 10)) ] || return 1
		sleep 0.1
	done
	return 0
}

log_of() {
	echo "slurm-test-server: $1 did not start; its log:" >&2
	tail -20 "$dir/log/$1.log" >&2
	exit 1
}

# bg NAME USER CMD...: start CMD in the background as USER, keep its PID
bg() {
	n=$1 u=$2
	shift 2
	if [ "$u" = root ]; then
		setsid "$@" >>"$dir/log/$n.log" 2>&1 </dev/null &
	else
		setsid runuser -u "$u" -- "$@" >>"$dir/log/$n.log" 2>&1 </dev/null &
	fi
	echo $! >"$dir/$n.pid"
}

stop_pid() {
	f=$dir/$1.pid
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -KILL "$pid" 2>/dev/null
	fi
	rm -f "$f"
}

start() {
	[ "$(id -u)" = 0 ] || fail "needs root (slurmd starts jobs as their users)"
	if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmdbd >/dev/null 2>&1 ||
	   ! command -v mariadbd >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
		"$here/install-deps.sh" slurm >&2 || fail "cannot install SLURM's packages"
	fi
	for p in slurmctld slurmd slurmdbd mariadbd munged sacctmgr; do
		command -v $p >/dev/null 2>&1 || [ -x /usr/sbin/$p ] ||
			fail "$p is not installed (Debian: slurm-wlm slurmdbd mariadb-server munge)"
	done
	mkdir "$dir" || exit 1
	dir=$(cd "$dir" && pwd)
	mkdir -p "$dir/log" "$dir/munge" "$dir/mysql" "$dir/state" "$dir/spool" "$dir/run"
	chmod 755 "$dir"
	host=$(hostname -s)
	ctld_port=$(free_port) && slurmd_port=$(free_port) && dbd_port=$(free_port) &&
		db_port=$(free_port) || fail "no free port"

	# munge: the package's key, our own socket
	[ -r /etc/munge/munge.key ] || fail "no /etc/munge/munge.key (Debian: munge)"
	chown munge "$dir/munge" && chmod 755 "$dir/munge"
	bg munged munge /usr/sbin/munged -F --socket="$dir/munge/munge.socket" \
		--pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" \
		--log-file="$dir/log/munged.log" --key-file=/etc/munge/munge.key

	# MariaDB: a database of our own on a loopback port
	chown mysql "$dir/mysql"
	mariadb-install-db --user=mysql --datadir="$dir/mysql/data" --auth-root-authentication-method=socket \
		--skip-test-db >"$dir/log/mariadb-install.log" 2>&1 ||
		{ tail -20 "$dir/log/mariadb-install.log" >&2; fail "mariadb-install-db failed"; }
	bg mariadbd root /usr/sbin/mariadbd --no-defaults --user=mysql \
		--datadir="$dir/mysql/data" --socket="$dir/mysql/mysqld.sock" \
		--pid-file="$dir/mysql/mariadbd.pid" --port="$db_port" --bind-address=127.0.0.1 \
		--innodb-buffer-pool-size=1G --innodb-lock-wait-timeout=900 \
		--innodb-flush-log-at-trx-commit=0 --skip-log-bin
	wait_for 60 mariadb mariadb --socket="$dir/mysql/mysqld.sock" -e 'select 1' || log_of mariadbd
	mariadb --socket="$dir/mysql/mysqld.sock" -e "
		CREATE DATABASE slurm_acct_db;
		CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';
		CREATE USER 'slurm'@'localhost' IDENTIFIED BY 'slurm';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';" ||
		fail "cannot create slurm_acct_db"
	wait_for 30 munged test -S "$dir/munge/munge.socket" || log_of munged

	cat >"$dir/slurmdbd.conf" <<-EOF
	AuthType=auth/munge
	AuthInfo=socket=$dir/munge/munge.socket
	DbdHost=localhost
	DbdAddr=127.0.0.1
	DbdPort=$dbd_port
	SlurmUser=root
	PidFile=$dir/run/slurmdbd.pid
	LogFile=$dir/log/slurmdbd.log
	StorageType=accounting_storage/mysql
	StorageHost=127.0.0.1
	StoragePort=$db_port
	StorageUser=slurm
	StoragePass=slurm
	StorageLoc=slurm_acct_db
	EOF
	chmod 600 "$dir/slurmdbd.conf"
	cat >"$dir/slurm.conf" <<-EOF
	ClusterName=$name
	SlurmctldHost=$host(127.0.0.1)
	SlurmctldPort=$ctld_port
	SlurmdPort=$slurmd_port
	SlurmUser=root
	SlurmdUser=root
	AuthType=auth/munge
	AuthInfo=socket=$dir/munge/munge.socket
	StateSaveLocation=$dir/state
	SlurmdSpoolDir=$dir/spool
	SlurmctldPidFile=$dir/run/slurmctld.pid
	SlurmdPidFile=$dir/run/slurmd.pid
	SlurmctldLogFile=$dir/log/slurmctld.log
	SlurmdLogFile=$dir/log/slurmd.log
	MailProg=/bin/true
	ReturnToService=2
	SchedulerType=sched/backfill
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core_Memory
	ProctrackType=proctrack/cgroup
	TaskPlugin=task/cgroup,task/affinity
	PrologFlags=Contain
	MpiDefault=none
	JobAcctGatherType=jobacct_gather/linux
	JobAcctGatherFrequency=1
	AccountingStorageType=accounting_storage/slurmdbd
	AccountingStorageHost=127.0.0.1
	AccountingStoragePort=$dbd_port
	AccountingStoragePass=$dir/munge/munge.socket
	AccountingStorageEnforce=associations
	KillWait=30
	MinJobAge=300
	InactiveLimit=0
	SlurmctldTimeout=30
	SlurmdTimeout=60
	DefMemPerCPU=1000
	NodeName=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=20000 State=UNKNOWN
	PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
	EOF
	cat >"$dir/cgroup.conf" <<-EOF
	CgroupPlugin=autodetect
	ConstrainCores=no
	ConstrainRAMSpace=yes
	ConstrainSwapSpace=yes
	AllowedSwapSpace=0
	EOF
	export SLURM_CONF="$dir/slurm.conf"
	bg slurmdbd root /usr/sbin/slurmdbd -D
	wait_for 30 slurmdbd timeout 5 sacctmgr -n list cluster || log_of slurmdbd
	sacctmgr -i add cluster "$name" >/dev/null &&
		sacctmgr -i add account tracker Cluster="$name" Description=tests Organization=tracker >/dev/null &&
		sacctmgr -i add user root Account=tracker Cluster="$name" >/dev/null ||
		fail "sacctmgr could not register the cluster"
	bg slurmctld root /usr/sbin/slurmctld -D -i -f "$dir/slurm.conf"
	wait_for 30 slurmctld scontrol ping || log_of slurmctld
	bg slurmd root /usr/sbin/slurmd -D -f "$dir/slurm.conf"
	wait_for 60 slurmd sh -c "sinfo -h -N -o %t | grep -qx idle" || log_of slurmd
	echo "$dir/slurm.conf"
}

stop() {
	[ -d "$dir" ] || exit 0
	dir=$(cd "$dir" && pwd)
	if [ -f "$dir/slurm.conf" ] && [ -f "$dir/slurmctld.pid" ]; then
		SLURM_CONF="$dir/slurm.conf" scancel --cluster="$(sed -n 's/^ClusterName=//p' "$dir/slurm.conf")" \
			--full --user=root >/dev/null 2>&1
		SLURM_CONF="$dir/slurm.conf" scancel --user=root >/dev/null 2>&1
		i=0
		while [ $i -lt 50 ] && [ -n "$(SLURM_CONF="$dir/slurm.conf" squeue -h -o %i 2>/dev/null)" ]; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
	for d in slurmd slurmctld slurmdbd mariadbd munged; do
		stop_pid $d
	done
	# slurmd's empty cgroups (slurm_<node>/uid_*/job_*/...), deepest first;
	# rmdir leaves any that still hold a process
	find /sys/fs/cgroup -maxdepth 2 -name "slurm_$(hostname -s)" -type d 2>/dev/null |
		while read -r cg; do
			find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null
		done
	rm -rf "$dir"
}

case $cmd in
start) start ;;
stop) stop ;;
*) usage ;;
esac

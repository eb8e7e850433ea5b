module cfscale/loadgen/bench/gotarget

go 1.21

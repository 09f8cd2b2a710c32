/* The executor protocol: how parity talks to an executor child. Two
 * executors speak it: parity-torch (C++, libtorch; src/executor/
 * parity_torch.cpp) and parity_torch.py (Python with torch, for backends
 * reachable only from Python such as torch_tpu or torch_xla). Both change
 * together; PX_PROTO_VERSION says which revision they speak.
 *
 * Transport. The child is started as
 *     parity-torch --model PATH --format F --kind K --device DEV --dtype T
 *                  [--pooling mean|cls|none] [--normalize]
 *                  --threads N [--optional-input NAME]... [--output NAME]
 *                  [--tf32 on|off] [--matmul-precision highest|high|medium]
 *                  [--backend-lib PATH]
 *     PYTHON parity_torch.py (the same options) [--backend-module NAME]...
 *                  [--compile-backend NAME [--compile-mode MODE]
 *                   [--compile-dynamic true|false]]
 * with a pipe on stdin (parent -> child) and one on stdout (child -> parent);
 * the child moves its own stdout to stderr at once, so that nothing the
 * backend prints can corrupt the stream. stderr is a third pipe whose tail
 * parity keeps for crash reports.
 *
 * The device. --device names it as torch does (cpu, cuda:0, privateuseone,
 * or the name a backend module gave PrivateUse1, such as tpu). On torch 2,
 * a name torch does not know with --backend-lib names the library's
 * PrivateUse1 device (c10::register_privateuse1_backend /
 * torch.utils.rename_privateuse1_backend), unless a backend module named it
 * already; torch 1.13 cannot rename, and the device stage fails saying so.
 * READY's device is the device's own name (tpu, not privateuseone).
 *
 * --format is the model's (contract.model.format, or the environment's
 * own): torchscript (a torch.jit.save file; both executors), export (a
 * torch.export.save program, .pt2: the Python executor on torch 2.1 or
 * later, which runs torch.export.load(PATH).module()) or transformers (a
 * save_pretrained directory: the Python executor with the transformers
 * package loads it with AutoModelForSequenceClassification for --kind
 * classifier, AutoModelForCausalLM for --kind generator, AutoModel (the
 * bare encoder, its token states) for --kind embedding, from_pretrained
 * with local_files_only, trust_remote_code off and safetensors only, and
 * HF_HUB_OFFLINE=1 set by itself) or diffusers (a Diffusers pipeline's
 * save_pretrained directory, --kind image only: the Python executor with
 * the diffusers package loads it with DiffusionPipeline.from_pretrained,
 * local files and safetensors only, HF_HUB_OFFLINE=1; revision 8). An
 * executor that cannot load the format
 * (parity-torch anything but TorchScript; an interpreter without torch 2
 * or transformers) answers FAIL(stage load, unsupported) saying what is
 * needed; parity-torch answers a DENOISE FAIL(stage forward, unsupported)
 * for the same reason. --kind is contract.model.kind (classifier,
 * generator, embedding or image); --kind image goes with --format diffusers
 * and --format diffusers with --kind image (else FAIL(stage load,
 * unsupported)), and such an executor answers DENOISE, a RUN with
 * FAIL(stage forward, "protocol: ...").
 *
 * Model handling, the same in both: the model is loaded on the CPU, then
 * moved to the device, then .to(dtype), eval(). Every forward (RUN,
 * GENERATE) runs in inference mode on the CPU and CUDA, whose kernels torch
 * guarantees for inference tensors, and under no_grad on every other device
 * (PrivateUse1 backends such as a TPU's, XLA): some of them refuse inference
 * tensors, and no_grad changes no numerics. --compile-backend (the Python
 * executor only; an environment's compile:, parity-fixture(5)) then wraps
 * the model in torch.compile(backend=NAME, mode=MODE, "default" passed as
 * None, dynamic: true, false, or None when not given); a torch without
 * torch.compile, or a backend torch does not know once the modules are
 * imported, is FAIL(stage load, unsupported). Nothing compiles before a
 * forward: the first forward of a shape that needs a graph compiles it (a
 * TorchScript module is first converted to an exported program, in that
 * forward) and its OUTPUT says compiled 2. An input named by
 * --optional-input (parity sends token_type_ids when the fixture does not
 * list contract.model.inputs) is left out when the forward does not take
 * it; the others go to the forward by name when its signature (a
 * ScriptModule's schema, the Python signature of a module's forward) names
 * every one of them, else in the order sent (a forward with names of its
 * own). The output is the returned tensor; else, with --output NAME
 * (contract.model.output, revision 5), the entry NAME of a returned dict (a
 * Transformers output is one: its field NAME) or, NAME an integer, the
 * element NAME of a returned tuple; without --output (and with --output
 * logits, which a tuple reads as its first element), the "logits" entry of
 * a dict or the first element of a tuple; for an embedding pooled mean or
 * cls, the "last_hidden_state" entry of a dict (a Transformers encoder's
 * token states) or the first element of a tuple. A dict without the entry fails
 * naming the keys it has ("model returned a dict with keys scores, hidden:
 * name one in contract.model.output"); a tuple index out of range naming
 * the tuple's length (FAIL(stage forward, exception)).
 *
 * Embedding (--kind embedding, contract.model.kind, revision 6): the
 * output chosen as above is made the example's vector, in float32 on the
 * output as the model gave it (whatever --dtype), by --pooling
 * (contract.model.pooling): mean, the token states [B, T, D] times the
 * attention mask sent (all ones when none was sent), summed over T and
 * divided by max(the mask's sum, 1e-9) (sentence-transformers' mean
 * pooling); cls, each row's token 0; none (the default), the output
 * itself. Then --normalize (contract.model.normalize) divides each row by
 * max(its L2 norm, 1e-12) (torch.nn.functional.normalize). OUTPUT is that
 * [B, D] float32 vector, its dtype field the model's output's (bfloat16 on
 * a bfloat16 model: what the pooling read), and forward_ms includes the
 * pooling. Pooling mean or cls on an output that is not 3-D (or whose
 * [B, T] is not the attention mask's) is FAIL(stage forward, exception)
 * saying so; none on an output that is not 2-D sends it as it is, and
 * parity judges its shape against [1, contract.model.dim] (bad-shape).
 * A batch (parity bench, batch:N) pools each row with its own mask.
 *
 * Timing. Every figure an executor reports is read after the device is
 * synchronized: before the clock starts (so that the inputs' upload, still
 * in flight on an asynchronous device, is not the forward's) and before it
 * is read (after the output's copy to the host). The synchronize is
 * torch.accelerator.synchronize where torch has it and the device is its
 * accelerator, else torch.<device>.synchronize (Python); the device guard's
 * synchronizeDevice on torch 2, synchronizeStream on 1.13 (C++); none on
 * the CPU, nor where the backend has none (torch 1.13's Python on a
 * PrivateUse1 device), which the executor says on stderr.
 *
 * Framing. Every message is a frame: an 8-byte header, then the payload.
 *     u32 type     (one of enum px_frame_type, little-endian)
 *     u32 length   (payload bytes, at most PX_FRAME_MAX)
 * Payload fields are little-endian: u32, i64, f64 (IEEE-754 bits), and
 * str = u32 byte length + bytes (UTF-8, no NUL).
 *
 * Conversation.
 *     child  -> READY | FAIL(stage device or load)         once, after loading
 *     parent -> RUN                                        any number of times
 *     child  -> OUTPUT | FAIL(stage forward)               one per RUN
 *     parent -> TRAIN                                      parity bench
 *     child  -> TRAINED | FAIL(stage forward)              one per TRAIN
 *     parent -> GENERATE                                   a generator's example
 *     child  -> GENERATED | FAIL(stage forward)            one per GENERATE
 *     parent -> DENOISE                                    an image's example
 *     child  -> DENOISED | FAIL(stage forward)             one per DENOISE
 *     parent -> TRAINRUN                                   a training run
 *     child  -> TRAINSTEP... TRAINEND | FAIL(stage forward) one per step, then
 *                                                          the end
 *     parent -> DESCRIBE                                   what the model takes
 *     child  -> DESCRIBED | FAIL(stage forward)            one per DESCRIBE
 *     parent closes stdin                                  child exits 0
 *
 * READY  : u32 protocol (PX_PROTO_VERSION; parity refuses another),
 *          str executor ("libtorch" | "python"),
 *          str runtime (the interpreter: "CPython 3.11.2"; "" for libtorch),
 *          str torch_version,
 *          str backend_modules, str backend_versions (", "-separated, in
 *              import order; "" when none was imported),
 *          str device, str device_name, str dtype,
 *          str tf32 ("on" | "off" | "" not set),
 *          str matmul_precision (torch's float32 matmul precision in force:
 *              highest, high or medium; on torch 2.9+ with tf32 or
 *              matmul_precision given, followed by the per-backend setting
 *              this device's matmuls read and its value, e.g. "medium
 *              (mkldnn.matmul.fp32_precision bf16)" on the CPU, "high
 *              (cuda.matmul.fp32_precision tf32)" on CUDA; the executors
 *              set those settings, torch.backends.*.fp32_precision, and not
 *              the deprecated global ones, there),
 *          str ignored (which of those settings the backend does not read,
 *              and why; "" when none or not known),
 *          f64 load_ms,
 *          str load (how the model was brought to dtype, as its user would
 *              write it: "from_pretrained(dtype=torch.bfloat16)" for a
 *              Transformers directory, "torch.jit.load().to(torch.bfloat16)"
 *              for a TorchScript module cast, "torch.jit.load()" for one
 *              saved in the dtype, "torch.export.load().module()" for an
 *              export program, which runs in the dtype it was exported in;
 *              parity-fixture(5) "Formats")
 *          (revision 7: READY's load is new)
 * RUN    : u32 n_inputs, then per input: str name, u32 ndim, i64 dims[ndim],
 *          i64 values[product(dims)]            (int64 inputs only)
 * OUTPUT : str dtype, u32 ndim, i64 dims[ndim], u64 count, f64 values[count],
 *          f64 forward_ms  (values converted to float64 on the host;
 *                           forward_ms includes the copy to the host, which
 *                           is what makes a lazy device such as XLA execute),
 *          u32 compiled    (enum px_compiled: whether this forward compiled
 *                           a graph, where the backend can tell)
 * TRAIN  : u32 steps, f64 lr, then the batch as RUN sends it (u32 n_inputs,
 *          per input: str name, u32 ndim, i64 dims[ndim], i64 values[]:
 *          the labelled examples stacked into [n, L], padded with attention
 *          mask 0), then u32 n, i64 targets[n] (each example's label index).
 *          On a copy of the loaded module (never the module itself, which
 *          answers every later RUN as before), outside inference mode and
 *          in train(): `steps` SGD steps at lr, each a forward of the whole
 *          batch, cross-entropy against targets, backward, update.
 * TRAINED: u32 steps, f64 loss[steps] (each step's loss before its update,
 *          as a float64 on the host), f64 step_ms[steps] (each step timed by
 *          the executor, the copy of the loss to the host included)
 *          (revision 3: TRAIN and TRAINED are new)
 * GENERATE: u32 max_new_tokens (1 .. PX_GEN_MAX_NEW), u32 n_stop,
 *          i64 stop_ids[n_stop], u32 decoding (1 greedy, 2 sample),
 *          f64 temperature, u32 top_k, u64 seed (as i64 bits), u32
 *          report_top (R, at most PX_GEN_MAX_TOP), then the prompt as RUN
 *          sends it (u32 n_inputs, per input: str name, u32 ndim,
 *          i64 dims[ndim], i64 values[]: input_ids and attention_mask,
 *          each [1, T]).
 *          For step s = 0 .. max_new_tokens-1: a forward of the whole
 *          sequence so far (the prompt and the ids chosen so far) as
 *          input_ids [1, T+s] with attention_mask all ones (no KV cache),
 *          on the loaded module, in inference mode; except that the Python
 *          executor decodes a Transformers causal LM with its KV cache, so
 *          a token's cost does not grow with the text: step 0 is the prompt
 *          [1, T] with use_cache, each later step only the last chosen id
 *          [1, 1] with the past_key_values carried and attention_mask all
 *          ones [1, T+s] (its logits equal the whole-sequence forward's to
 *          rounding, not bit for bit). Either way the last position's row
 *          of V logits is copied to the host as float64; an id is chosen
 *          (below) and recorded; a stop id ends it (end 1, stop), any other
 *          is appended. After max_new_tokens steps: end 2 (length).
 *          Choosing (the same in both executors and in parity's reference,
 *          src/proto/generate.c, bit for bit): greedy is torch.argmax (the first
 *          NaN if any, else the lowest id of the largest). sample draws on
 *          the host, never the device's generator: a splitmix64 state set to
 *          seed at the start of each GENERATE; each step draws
 *          u = (z >> 11) * 2^-53 from it; a row with a NaN, or whose largest
 *          candidate logit m is not finite, takes the greedy id (the draw is
 *          still made); otherwise the candidates are the top_k ids (0: all)
 *          by logit descending, ties lower id first, w_i = exp((l_i - m) /
 *          temperature) (libm's exp, float64), total = their sum in that
 *          order, and the first candidate whose running sum c has
 *          u * total < c is chosen (none, by rounding: the last).
 * GENERATED: str dtype (the logits' dtype as the model produced it),
 *          u32 ndim, i64 dims[ndim] (the first step's output shape),
 *          u32 n_steps, per step: i64 id, u32 r, i64 top_ids[r],
 *          f64 top_logits[r] (the row's top R, ordered as the candidates
 *          above with any NaN first), then u32 end (1 stop, 2 length),
 *          f64 first_ms (the first step's forward, which holds any
 *          compilation), f64 total_ms (all steps, each with its copy to the
 *          host). An output that is not [1, T+s, V] at any step ([1, 1, V]
 *          after the first with the cache; V that of the first step, at
 *          least 1) is answered with the shape it had,
 *          n_steps 0 and end 0 (parity records bad-shape; never a guess).
 *          Malformed GENERATE (max_new_tokens, decoding, a sample's
 *          temperature not > 0, report_top, inputs other than input_ids and
 *          attention_mask [1, T]): FAIL(stage forward, "protocol: ...").
 *          (revision 4: GENERATE and GENERATED are new)
 * DENOISE: (kind image, --format diffusers, the Python executor; revision 8)
 *          u32 class_id (the example's class: its index in
 *          contract.labels), u64 seed (as i64 bits), u32 steps
 *          (num_inference_steps, 1 .. PX_IMAGE_MAX_STEPS), f64
 *          guidance_scale (> 1: classifier-free guidance against the null
 *          class, the denoiser's num_embeds_ada_norm / num_class_embeds - 1),
 *          u32 height, u32 width (pixels), u32 latent_every (record the
 *          latent after each k-th step and after the last; at least 1).
 *          The executor loads the pipeline directory's components as
 *          model_index.json lists them, each from_pretrained(dtype=...)
 *          (the VAE too), the scheduler from its config. Per DENOISE: the
 *          initial noise [1, C, height/f, width/f] (C the denoiser's
 *          in_channels, f the VAE's scale factor) is drawn on the CPU in
 *          float32 with torch.Generator("cpu").manual_seed(seed) and
 *          torch.randn, then moved to the device and cast to dtype (never
 *          drawn on the device); then the loop of diffusers' DiTPipeline:
 *          set_timesteps(steps), per step the denoiser on the latents
 *          (doubled, conditional and null class, under guidance), the
 *          guided noise prediction (the learned-sigma half dropped),
 *          scheduler.step; then vae.decode(latents / scaling_factor) and
 *          (x / 2 + 0.5).clamp(0, 1), as output_type "np" gives it.
 * DENOISED: str dtype (the latents' dtype as the pipeline ran),
 *          u32 height, u32 width, u32 channels (of the decoded image),
 *          f64 image[height * width * channels] (row-major, channels last;
 *          a NaN stays a NaN),
 *          str noise_sha256 (hex SHA-256 of the initial noise's float32
 *          bytes, little-endian, C order: which noise it started from),
 *          u32 latent_ndim, i64 latent_dims[latent_ndim] (the conditional
 *          half's, [1, C, h, w]), u32 n_recorded, per recorded latent:
 *          u32 step (0-based, ascending), f64 values[product(latent_dims)]
 *          (float64 on the host), then u32 steps (that ran), f64 first_ms
 *          (the first step, which holds any compilation), f64 total_ms (the
 *          whole call, noise to image, with its copy to the host), u32
 *          compiled (enum px_compiled).
 *          Malformed DENOISE (steps, sizes, latent_every, a class_id the
 *          denoiser has no embedding for, a payload not of exactly these
 *          fields, a DENOISED that would record more than
 *          PX_IMAGE_MAX_RECORDED latents or PX_IMAGE_MAX_LATENT values a
 *          latent (results.h) or not fit PX_FRAME_MAX): FAIL(stage
 *          forward, "protocol: ..."). A DiT makes one size: height and
 *          width must be its sample_size times the VAE's scale factor.
 *          READY's load: "DiffusionPipeline.from_pretrained(dtype=
 *          torch.bfloat16)" (torch_dtype= on a diffusers before dtype=).
 *          compile: wraps the denoiser (the pipeline's transformer).
 *          (revision 8: DENOISE, DENOISED, --kind image and --format
 *          diffusers are new)
 * TRAINRUN: (kind training, --format transformers, the Python executor;
 *          revision 9) a training run (an example of kind training:
 *          fixture.h px_recipe). u32 steps (1 .. PX_TRAIN_RUN_MAX_STEPS),
 *          u32 batch_size, u32 seq_len, u32 optimizer (1 adamw, 2 sgd),
 *          f64 beta1, f64 beta2, f64 eps, f64 weight_decay, f64 momentum,
 *          f64 clip_grad_norm (0: none), u64 seed (as i64 bits),
 *          f64 lr[steps] (each step's learning rate: parity's schedule,
 *          recipe.h, never the executor's), u32 n_windows, i64
 *          windows[n_windows * (seq_len + 1)] (the data's token ids cut as
 *          fixture.h says: the whole file tokenized once by parity as
 *          tokenizer(text) does, post-processor included, window w its
 *          ids w*seq_len .. w*seq_len + seq_len, n_windows = (ids - 1) /
 *          seq_len, all sent; every id below the model's vocab_size).
 *          The executor trains a copy of the loaded model (never the model
 *          files, nor the module later frames use): torch.manual_seed(seed),
 *          train(), every dropout p 0 (config's *dropout keys too), the
 *          optimizer on the copy's parameters (torch.optim.AdamW(lr, betas,
 *          eps, weight_decay) or SGD(lr, momentum)), then per step s: the
 *          batch rows j < batch_size are windows[(s*batch_size + j) mod
 *          n_windows]; zero_grad; forward of the first seq_len ids
 *          (logits in float32), loss the mean cross-entropy against the
 *          last seq_len; backward; the gradients' total L2 norm (float32,
 *          torch.nn.utils.clip_grad_norm_, which clips to clip_grad_norm
 *          when not 0, else get_total_norm); every group's lr set to lr[s];
 *          optimizer.step(); the update's total L2 norm (the parameters
 *          after less before, in float32; in a parallel run each rank's
 *          squared change of its own shards in float64, summed over the
 *          ranks in the same all-reduce as the loss). Precision is the environment's
 *          (--dtype: the weights and the optimizer's state;
 *          --mixed-precision-param bfloat16: forward and backward under
 *          torch.autocast(device, bfloat16) over the float32 weights in one
 *          process, fully_shard's MixedPrecisionPolicy(param_dtype,
 *          reduce_dtype from --mixed-precision-reduce) with FSDP, the same
 *          autocast with DDP). With --parallel ddp|fsdp --processes N
 *          --dist-backend B the executor is rank 0 of N, started by
 *          torchrun (python -m torch.distributed.run --standalone
 *          --nproc-per-node N parity_torch.py ...; parity starts it so, in a
 *          process group of its own that it kills whole): only rank 0 reads
 *          and writes the protocol (the others close those descriptors and
 *          get TRAINRUN's payload by broadcast); each rank trains on rows j
 *          with j mod N == its rank of every step's batch (batch_size a
 *          multiple of N), DDP(model) or fully_shard on each decoder layer
 *          and the model, the loss averaged over ranks as one process's
 *          mean is; the norms over the whole model. A rank that raises ends
 *          its run with FAIL(stage forward, "rank R: ..."): rank 0 sends
 *          it; another rank says "parity_torch.py: rank R: ..." on stderr
 *          and exits 1, and torchrun, which ends the others, reports it
 *          (its "Root Cause": rank and exitcode) on its stderr, from which
 *          parity names the rank (one that died: "rank 1 exited with
 *          status 9"). After any failure of a parallel run parity ends the
 *          whole group (torchrun; each rank dies with it: PR_SET_PDEATHSIG)
 *          and starts it afresh for the next run. --progress FILE (a
 *          parallel run's, a file parity made empty): each rank writes
 *          where it is, "STEP PHASE" (STEP 0-based, -1 before the first;
 *          PHASE ready, forward, backward, optimizer, reduce, done or
 *          groups, as it enters each) padded with spaces to 31 bytes and a
 *          newline, at byte rank * 32, so that a run that hangs (no
 *          TRAINSTEP within the timeout) is told by its marks: the rank
 *          furthest behind named, and where the others waited ("rank 1
 *          stopped after step 3 (rank 0 was in step 4's forward)"). Test hook:
 *          PARITY_TRAIN_FAULT="RANK:STEP:crash|hang|raise" in the
 *          executor's environment makes that rank, at the start of that
 *          step, exit at once (status 9), sleep forever or raise (tests
 *          only; parity_train.py).
 * TRAINSTEP: (one per step, as each ends; revision 9) u32 step (0-based,
 *          in order), f64 loss (before the update), f64 grad_norm (before
 *          clipping), f64 update_norm, f64 lr (as run), f64 step_ms (the
 *          step, the loss's copy to the host included), u32 compiled
 *          (enum px_compiled). A NaN stays a NaN: the run goes on.
 * TRAINEND: (after the last TRAINSTEP; revision 9) str dtype (the
 *          weights'), u32 processes, f64 startup_ms (TRAINRUN received to
 *          the first step: the copy, the optimizer, the process group's
 *          agreement), f64 total_ms, u32 n_groups (1 ..
 *          PX_TRAIN_MAX_GROUPS), per group: str name (embed, attention,
 *          mlp, norm, head or other: the first of embed_tokens|wte|
 *          word_embeddings, attn|attention, mlp|feed_forward, norm|ln_,
 *          lm_head in the parameter's name, in that order), i64 numel, f64
 *          norm (the parameters at the end, float32 L2), f64 delta_norm
 *          (their change since the start), f64 sketch[PX_TRAIN_SKETCH]
 *          (results.h: row k of a [PX_TRAIN_SKETCH, numel] matrix of
 *          torch.randn drawn in float32 from torch.Generator("cpu")
 *          .manual_seed(1000 + the group's index in that list), in chunks
 *          of 65536 columns, dotted with the change flattened in the
 *          order of named_parameters, in float64). Groups with no
 *          parameters are left out.
 *          Malformed TRAINRUN (counts, an id past vocab_size, a batch_size
 *          not a multiple of the processes, a payload not of exactly these
 *          fields): FAIL(stage forward, "protocol: ..."). READY's load:
 *          "AutoModelForCausalLM.from_pretrained(dtype=torch.float32)".
 *          (revision 9: TRAINRUN, TRAINSTEP, TRAINEND, --kind training,
 *          --mixed-precision-param, --mixed-precision-reduce, --parallel,
 *          --processes, --dist-backend and --progress are new)
 * DESCRIBE: no payload. Asks what the loaded model takes and gives, without
 *          a forward (parity init, src/run/describe.c).
 * DESCRIBED: u32 args_known (1 when the forward's argument names could be
 *          read: a ScriptModule's schema, the Python signature of a module's
 *          forward, a Transformers model's forward), u32 n_args,
 *          str args[n_args] (in order, self left out; 0 when not known),
 *          str returns (the declared return type as the schema or the
 *          annotation writes it, "Dict(str, Tensor)"; "" when none),
 *          i64 max_positions (the largest number of positions an input may
 *          have: a Transformers model's config.max_position_embeddings (less
 *          pad_token_id + 1 for RoBERTa's kin, whose positions start after
 *          the padding index), else the rows of a 2-D parameter named
 *          *position_embeddings.weight; -1 when neither is there),
 *          i64 head (the width of a classifier's head: config.num_labels,
 *          else the rows of a 2-D parameter named *classifier.weight,
 *          *classifier.out_proj.weight or *score.weight; -1 when not known,
 *          and for a generator),
 *          i64 hidden (the model's hidden width, what an embedding's
 *          vector is as wide as when it pools token states: a Transformers
 *          model's config.hidden_size, else the columns of a 2-D parameter
 *          named *word_embeddings.weight; -1 when neither is there)
 *          (revision 5: DESCRIBE, DESCRIBED and --output are new;
 *          revision 6: DESCRIBED's hidden, --kind embedding, --pooling and
 *          --normalize)
 * FAIL   : u32 stage (enum px_stage), u32 kind (enum px_fail_kind, decided
 *          by the executor, which knows its backend's wording: unsupported
 *          for a NotImplementedError, the dispatcher's "Could not run
 *          'aten::op' with arguments from the 'PrivateUse1' backend" (torch
 *          2 with the device renamed: "... from the 'tpu' backend") and a
 *          kernel's "\"op\" not implemented for 'BFloat16'"), str message
 *          (exception text, without libtorch's C++ backtrace)
 *
 * The fork server: parity-torch --serve. Loading libtorch (dynamic linking
 * and its static initialisers) is most of an executor's start-up; the fork
 * server pays it once per run and forks an executor per environment (and
 * per restart after a crash). parity (src/run/forksrv.c) starts it lazily, when
 * the first libtorch environment starts, with one end of a SOCK_SEQPACKET
 * socketpair as its stdin and stdout (the control channel; its stderr is
 * /dev/null), in a process group of its own and with PR_SET_PDEATHSIG
 * (SIGKILL): it dies with parity's runner thread. On the control channel
 * each packet is one frame (the framing above, at most PX_CTL_MAX bytes):
 *     server -> HELLO   : u32 protocol (PX_PROTO_VERSION); once, first. Any
 *                         other first packet, or none within the start-up
 *                         timeout, and parity forgets the server and starts
 *                         executors itself (posix_spawn), as it does with
 *                         PARITY_FORK_SERVER=0.
 *     parent -> SPAWN   : u32 argc, str argv[argc] (the executor's options,
 *                         without the program name), and three descriptors
 *                         (SCM_RIGHTS): the child's stdin, stdout, stderr
 *     server -> SPAWNED : i64 pid (0: not started), u32 errno (0 when
 *                         started); one per SPAWN, in order
 *     server -> EXITED  : i64 pid, u32 wait status (as waitpid gives it);
 *                         once per child, after its SPAWNED, whenever it ends
 *     parent closes the channel: the server kills what is left and exits.
 * The child, forked by the server: puts the descriptors on 0, 1 and 2, its
 * own process group (setpgid, also done by the server before SPAWNED, so
 * parity can kill the group at once), PR_SET_PDEATHSIG (SIGKILL: it dies
 * with the server, hence with parity; it checks its parent after the prctl
 * to close the race), then runs the executor as if started with that argv,
 * and ends with _exit (libtorch's static destructors, which after a fork
 * copy every page they touch, are skipped; the protocol is unbuffered).
 * The server itself never runs a tensor operation, nor touches a device,
 * the thread pools or --backend-lib (OpenMP's threads do not survive a
 * fork): all of that happens in each child; before it forks it only builds
 * libtorch's JIT operator registry, which every executor would otherwise
 * build for itself. The Python executor has no server (yet): it is started
 * directly.
 */
#ifndef PARITY_PROTO_H
#define PARITY_PROTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PX_FRAME_HEADER 8u
#define PX_FRAME_MAX (64u << 20)
#define PX_MAX_DIMS 8

enum px_frame_type {
    PX_FRAME_READY = 0x59444552u,  /* "REDY" */
    PX_FRAME_RUN = 0x204E5552u,    /* "RUN " */
    PX_FRAME_OUTPUT = 0x2054554Fu, /* "OUT " */
    PX_FRAME_FAIL = 0x4C494146u,   /* "FAIL" */
    PX_FRAME_TRAIN = 0x4E495254u,  /* "TRIN" */
    PX_FRAME_TRAINED = 0x444E5254u, /* "TRND" */
    PX_FRAME_GENERATE = 0x524E4547u,  /* "GENR" */
    PX_FRAME_GENERATED = 0x444E4547u, /* "GEND" */
    PX_FRAME_DENOISE = 0x534E4544u,   /* "DENS" */
    PX_FRAME_DENOISED = 0x444E4544u,  /* "DEND" */
    PX_FRAME_TRAINRUN = 0x4E555254u,  /* "TRUN" */
    PX_FRAME_TRAINSTEP = 0x50545354u, /* "TSTP" */
    PX_FRAME_TRAINEND = 0x444E4554u,  /* "TEND" */
    PX_FRAME_DESCRIBE = 0x43534544u,  /* "DESC" */
    PX_FRAME_DESCRIBED = 0x44435344u, /* "DSCD" */
    /* The fork server's control channel (parity-torch --serve). */
    PX_FRAME_HELLO = 0x4F4C4548u,   /* "HELO" */
    PX_FRAME_SPAWN = 0x4E575053u,   /* "SPWN" */
    PX_FRAME_SPAWNED = 0x44495053u, /* "SPID" */
    PX_FRAME_EXITED = 0x54495845u,  /* "EXIT" */
};

#define PX_TRAIN_MAX_STEPS 10000u
#define PX_GEN_MAX_NEW 1024u  /* GENERATE's max_new_tokens */
#define PX_GEN_MAX_TOP 16u    /* GENERATE's report_top */
#define PX_CTL_MAX (64u << 10)  /* a control packet, header included */
#define PX_CTL_MAX_FDS 3

#define PX_IMAGE_MAX_STEPS 1000u /* DENOISE's steps */
#define PX_IMAGE_MAX_SIDE 4096u  /* DENOISE's height and width */

#define PX_PROTO_VERSION 9u

enum px_stage {
    PX_STAGE_DEVICE = 1,  /* device string or dtype not usable here */
    PX_STAGE_LOAD = 2,    /* the executor (an interpreter without torch, a
                             missing parity-torch) or the model could not be
                             loaded, or the model not moved */
    PX_STAGE_FORWARD = 3, /* forward raised */
};

enum px_fail_kind {
    PX_FAIL_EXCEPTION = 1,   /* the model or the backend raised */
    PX_FAIL_UNSUPPORTED = 2, /* the backend lacks the operator, device or dtype */
    PX_FAIL_NO_TORCH = 3,    /* the executor cannot work at all here (an
                                interpreter without torch): never an
                                example's outcome; that environment is down
                                at load, the others run */
};

enum px_compiled {
    PX_COMPILED_UNKNOWN = 0, /* the backend cannot tell */
    PX_COMPILED_NO = 1,
    PX_COMPILED_YES = 2,     /* a lazy device, or torch.compile, compiled a
                                graph for this forward */
};

/* A growable byte buffer with a read cursor; `bad` latches on overrun or
 * allocation failure so a decoder checks once at the end. */
typedef struct px_buf {
    uint8_t *data;
    size_t len, cap, pos;
    int bad;
} px_buf;

void buf_free(px_buf *b);
void buf_reset(px_buf *b);
void buf_put(px_buf *b, const void *p, size_t n);
void buf_put_u32(px_buf *b, uint32_t v);
void buf_put_i64(px_buf *b, int64_t v);
void buf_put_f64(px_buf *b, double v);
void buf_put_str(px_buf *b, const char *s);
uint32_t buf_get_u32(px_buf *b);
int64_t buf_get_i64(px_buf *b);
double buf_get_f64(px_buf *b);
/* Returns a malloc'd NUL-terminated copy, or NULL (and bad) on overrun. */
char *buf_get_str(px_buf *b);

/* Start a frame in b (header with a placeholder length); finish it with
 * proto_end, which fills in the length. */
void proto_begin(px_buf *b, uint32_t type);
void proto_end(px_buf *b);

/* Given `avail` bytes received so far, returns 1 and sets *type and
 * *frame_len (header included) when a whole frame is there, 0 when more bytes
 * are needed, -1 when the header is invalid (oversized). */
int proto_frame_ready(const uint8_t *data, size_t avail, uint32_t *type,
                      size_t *frame_len);

/* Blocking helpers (used by the child): write all bytes / read one whole
 * frame into b (payload only, pos 0). Return 0, or -1 on EOF or error. */
int proto_write_all(int fd, const void *p, size_t n);
int proto_read_frame(int fd, uint32_t *type, px_buf *b);

/* The control channel (a SOCK_SEQPACKET socket): one frame per packet
 * (finished by proto_end) with n_fds descriptors passed along. send: 0 or
 * -1. recv: 1 with the frame's type, its payload in b (pos 0) and the
 * descriptors received (close-on-exec), 0 at EOF, -1 on error or a packet
 * that is no whole frame (descriptors closed). */
int proto_send_packet(int sock, const px_buf *frame, const int *fds, int n_fds);
int proto_recv_packet(int sock, uint32_t *type, px_buf *b, int *fds, int max_fds, int *n_fds);

const char *proto_stage_name(int stage);
/* "exception", "unsupported", "no-torch"; NULL for an unknown kind. */
const char *proto_fail_kind_name(int kind);

#ifdef __cplusplus
}
#endif
#endif
